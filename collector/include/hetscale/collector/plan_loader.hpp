// Loading a plan file (docs/plan-file.md): site, groups, nodes, benchmark history,
// experiment, machine sets and their members, in one transaction. Loading it again
// changes nothing; a newer plan of the same experiment updates it.
//
// The site part alone (`hetscale groups --db`): site, groups and nodes with their newest
// figures, plus one benchmark history point per measured node record.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "hetscale/site/node_record.hpp"
#include "hetscale/site/round_plan.hpp"

namespace hetscale::collector {

/// Throws pg::DbError. The spec text it stores (in the spec and in the plan) goes through
/// redact_connection_passwords (hetscale/redaction.hpp).
void load_plan(pg::Connection& conn, const RoundPlan& plan);

/// One node's measured marked speed (per processor) at a time (ISO 8601 with a zone).
struct BenchmarkPoint {
  std::string node;
  std::string benchmark;
  std::string observed_at;
  double marked_speed = 0;
  /// The record's availability (`classify --availability`), stored in availability_history.
  std::optional<NodeAvailability> availability;
};

struct SiteCounts {
  std::size_t nodes = 0;       // nodes stored (added or updated)
  long long points_added = 0;  // history points new to the database
  long long availability_added = 0;  // availability measurements new to the database
};

/// `hetscale groups --db`: on the database `db` at the current schema (else Error saying to
/// migrate), upserts the site, its groups and nodes, and adds the points of nodes in the
/// site (others are skipped); a point already stored (same node, benchmark and time) adds
/// nothing; so for a point's availability. One load transaction, run again on a fresh
/// connection when the connection breaks (Session); `before_commit` runs inside it just
/// before the commit (groups writes its site table file there: a database error leaves no
/// file, an error of before_commit stores nothing). Throws pg::DbError.
SiteCounts store_site(const std::string& db, const PlanSite& site,
                      const std::vector<BenchmarkPoint>& points,
                      const std::function<void()>& before_commit = {});

}  // namespace hetscale::collector
