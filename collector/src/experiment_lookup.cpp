// An experiment by name, the current user's own first.
#include "hetscale/collector/experiment_lookup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale::collector {

std::optional<long long> find_experiment(pg::Connection& conn, const std::string& name) {
  // Own first; within the first rank every row is a candidate.
  const pg::Result r = conn.exec(R"sql(
    SELECT experiment_id, owner, cluster, owner = current_user AS own
    FROM hetscale.experiments WHERE name = $1
    ORDER BY own DESC, owner COLLATE "C", cluster COLLATE "C")sql",
                                 {name});
  if (r.rows() == 0) return std::nullopt;
  std::vector<std::string> candidates;
  for (int i = 0; i < r.rows() && r.text(i, 3) == r.text(0, 3); ++i)
    candidates.push_back(fmt::format("owner '{}', cluster '{}'", r.text(i, 1), r.text(i, 2)));
  if (candidates.size() > 1)
    throw Error(fmt::format("experiment '{}' is ambiguous: {} of that name ({})", name,
                            r.text(0, 3) == "t" ? "you own several" : "several users have one",
                            fmt::join(candidates, "; ")));
  return r.integer(0, 0);
}

}  // namespace hetscale::collector
