#include "hetscale/jobgen/partition_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "hetscale/jobgen/time_limit.hpp"
#include "hetscale/site/hostlist.hpp"

namespace hetscale::jobgen {

void check_partition(const Round& round, const slurm::Partition& partition,
                     const std::string& named_at) {
  if (round.sets.empty()) return;
  const RoundSet& largest = round.sets.back();  // sets only grow
  const auto& where = round.spec.machine_sets.max_where;
  if (largest.members.size() > partition.nodes.size())
    throw ConfigError(
        where, fmt::format("machine set {} has {} nodes, more than the {} node{} of partition '{}' "
                           "({})",
                           largest.set.index, largest.members.size(), partition.nodes.size(),
                           partition.nodes.size() == 1 ? "" : "s", partition.name, named_at));
  const std::set<std::string> in_partition(partition.nodes.begin(), partition.nodes.end());
  for (const SetMember& m : largest.members)
    if (in_partition.count(m.node) == 0)
      throw ConfigError(
          where, fmt::format("node '{}' of machine set {} is not in partition '{}' ({})", m.node,
                             largest.set.index, partition.name, named_at));
}

std::string refused_slurm_key(std::string_view message) {
  std::string lower(message);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // Slurm's words: "Invalid qos specification", "invalid partition specified",
  // "Invalid account or account/partition combination specified", "Requested reservation
  // is invalid", "Invalid feature specification". The account message names the
  // partition too: account first.
  for (std::string_view key : {"qos", "account", "reservation", "partition"}) {
    if (lower.find(key) != std::string::npos) return std::string(key);
  }
  if (lower.find("feature") != std::string::npos) return "constraint";
  if (lower.find("hetscale-weights") != std::string::npos) return "weights";
  return {};
}

SourceLocation refused_at(const ExperimentSpec& spec, std::string_view key) {
  if (const auto it = spec.slurm.key_where.find(key); it != spec.slurm.key_where.end()) return it->second;
  if (!spec.slurm.table_where.file.empty()) return spec.slurm.table_where;
  return {spec.source.string(), 0, 0};
}

}  // namespace hetscale::jobgen

