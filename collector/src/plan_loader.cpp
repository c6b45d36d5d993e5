// A plan file into the site, node and experiment tables (small: plain parameterised
// statements, no COPY).
#include "hetscale/collector/plan_loader.hpp"

#include <charconv>
#include <map>
#include <string>
#include <string_view>

#include "hetscale/base/redaction.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/session.hpp"

namespace hetscale::collector {
namespace {

std::string number(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::optional<std::string> optional(const std::string& value) {
  return value.empty() ? std::nullopt : std::optional<std::string>(value);
}

std::string id(const pg::Result& r) {
  return std::string(r.text(0, 0));
}

std::string upsert_site(pg::Connection& conn, const PlanSite& site) {
  return id(conn.exec(R"sql(
    INSERT INTO hetscale.sites (name, speed_unit, benchmark) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO UPDATE SET speed_unit = EXCLUDED.speed_unit,
                                     benchmark = EXCLUDED.benchmark
    RETURNING site_id)sql",
                      {site.name, site.speed_unit, site.benchmark}));
}

std::map<std::string, std::string> upsert_groups(pg::Connection& conn, const std::string& site_id,
                                                 const PlanSite& site) {
  std::map<std::string, std::string> ids;
  for (const Group& g : site.groups) {
    ids[g.name] = id(conn.exec(R"sql(
      INSERT INTO hetscale.groups (site_id, name, marked_speed) VALUES ($1, $2, $3)
      ON CONFLICT (site_id, name) DO UPDATE SET marked_speed = EXCLUDED.marked_speed
      RETURNING group_id)sql",
                               {site_id, g.name, number(g.marked_speed)}));
  }
  return ids;
}

// What the site table says each group's nodes have (migration 27): the fingerprint, the
// hardware line and the kinds of core, replaced whole. Plan loading never calls it: a plan
// carries the groups' names and speeds only, and leaves what is stored as it is.
void store_group_hardware(pg::Connection& conn, const PlanSite& site,
                          const std::map<std::string, std::string>& groups) {
  for (const Group& g : site.groups) {
    const std::string& group_id = groups.at(g.name);
    conn.exec("UPDATE hetscale.groups SET fingerprint = $2, hardware = $3 WHERE group_id = $1",
              {group_id, optional(g.fingerprint), optional(g.hardware)});
    conn.exec("DELETE FROM hetscale.group_cpu_kinds WHERE group_id = $1", {group_id});
    for (std::size_t k = 0; k < g.cpu_kinds.size(); ++k) {
      const GroupCpuKind& kind = g.cpu_kinds[k];
      std::string cpus = "{";
      for (const unsigned cpu : kind.cpus) cpus += (cpus.size() > 1 ? "," : "") + std::to_string(cpu);
      cpus += "}";
      conn.exec(R"sql(
        INSERT INTO hetscale.group_cpu_kinds (group_id, kind, cpus, efficiency, core_type, marked_speed)
        VALUES ($1, $2, $3::bigint[], $4, $5, $6))sql",
                {group_id, std::to_string(k), cpus,
                 kind.efficiency ? std::optional<std::string>(std::to_string(*kind.efficiency))
                                 : std::nullopt,
                 optional(kind.core_type), number(kind.marked_speed)});
    }
  }
}

std::map<std::string, std::string> upsert_nodes(pg::Connection& conn, const std::string& site_id,
                                                const PlanSite& site,
                                                const std::map<std::string, std::string>& groups) {
  std::map<std::string, std::string> ids;
  for (const Node& n : site.nodes) {
    ids[n.name] = id(conn.exec(R"sql(
      INSERT INTO hetscale.nodes (site_id, name, group_id, processors, marked_speed, state)
      VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (site_id, name) DO UPDATE SET group_id = EXCLUDED.group_id,
        processors = EXCLUDED.processors, marked_speed = EXCLUDED.marked_speed,
        state = EXCLUDED.state
      RETURNING node_id)sql",
                               {site_id, n.name, groups.at(n.group), std::to_string(n.processors),
                                number(n.marked_speed), std::string(to_string(n.state))}));
  }
  return ids;
}

// A plan loaded by a user who may not change the centre's machines (a writer; migration
// 13) names them: its site, groups and nodes must be stored (by an administrator, with
// `hetscale groups --db`) and must say what is stored. Anything else refuses the plan.
[[noreturn]] void refuse(const PlanSite& site, const std::string& what) {
  throw Error("plan: " + what + "; the site '" + site.name +
              "' is the administrator's (hetscale groups --db): load the plan again once the "
              "stored site says the same, or make the plan from the stored site");
}

std::string stored_site(pg::Connection& conn, const PlanSite& site) {
  const pg::Result r = conn.exec(R"sql(
    SELECT site_id, speed_unit, benchmark FROM hetscale.sites WHERE name = $1)sql",
                                 {site.name});
  if (r.rows() == 0) refuse(site, "site '" + site.name + "' is not stored");
  if (r.text(0, 1) != site.speed_unit || r.text(0, 2) != site.benchmark)
    refuse(site, "the plan's site has speed unit '" + site.speed_unit + "' and benchmark '" +
                     site.benchmark + "', the stored one '" + std::string(r.text(0, 1)) +
                     "' and '" + std::string(r.text(0, 2)) + "'");
  return id(r);
}

std::map<std::string, std::string> stored_groups(pg::Connection& conn, const std::string& site_id,
                                                 const PlanSite& site) {
  std::map<std::string, std::string> ids;
  for (const Group& g : site.groups) {
    const pg::Result r = conn.exec(R"sql(
      SELECT group_id, marked_speed = $3::double precision, marked_speed
      FROM hetscale.groups WHERE site_id = $1 AND name = $2)sql",
                                   {site_id, g.name, number(g.marked_speed)});
    if (r.rows() == 0) refuse(site, "group '" + g.name + "' is not stored");
    if (r.text(0, 1) != "t")
      refuse(site, "group '" + g.name + "' has marked speed " + number(g.marked_speed) +
                       " in the plan, " + std::string(r.text(0, 2)) + " stored");
    ids[g.name] = id(r);
  }
  return ids;
}

std::map<std::string, std::string> stored_nodes(pg::Connection& conn, const std::string& site_id,
                                                const PlanSite& site) {
  std::map<std::string, std::string> ids;
  for (const Node& n : site.nodes) {
    const std::string plan = n.group + ", " + std::to_string(n.processors) + " processors, " +
                             number(n.marked_speed) + ", " + std::string(to_string(n.state));
    const pg::Result r = conn.exec(R"sql(
      SELECT n.node_id, g.name = $3 AND n.processors = $4::integer
                        AND n.marked_speed = $5::double precision AND n.state = $6,
             g.name || ', ' || n.processors || ' processors, ' || n.marked_speed || ', ' ||
               n.state
      FROM hetscale.nodes n JOIN hetscale.groups g USING (group_id)
      WHERE n.site_id = $1 AND n.name = $2)sql",
                                   {site_id, n.name, n.group, std::to_string(n.processors),
                                    number(n.marked_speed), std::string(to_string(n.state))});
    if (r.rows() == 0) refuse(site, "node '" + n.name + "' is not stored");
    if (r.text(0, 1) != "t")
      refuse(site, "node '" + n.name + "' is " + plan + " in the plan, " +
                       std::string(r.text(0, 2)) + " stored");
    ids[n.name] = id(r);
  }
  return ids;
}

// Without a time the load time stamps the figure. Returns the rows added (0 or 1).
long long add_history(pg::Connection& conn, const std::string& node_id,
                      const std::string& benchmark, const std::optional<std::string>& observed_at,
                      double marked_speed) {
  return conn
      .exec(R"sql(
      INSERT INTO hetscale.benchmark_history (node_id, benchmark, observed_at, marked_speed)
      VALUES ($1, $2, coalesce($3::timestamptz, now()), $4)
      ON CONFLICT DO NOTHING)sql",
            {node_id, benchmark, observed_at, number(marked_speed)})
      .affected();
}

std::string array_literal(const std::vector<double>& values);

long long add_availability(pg::Connection& conn, const std::string& node_id,
                           const BenchmarkPoint& p) {
  const NodeAvailability& a = *p.availability;
  return conn
      .exec(R"sql(
      INSERT INTO hetscale.availability_history (node_id, benchmark, observed_at,
        period_seconds, window_seconds, reference_speed, reference, mean_availability,
        sd_availability, th, correlation_seconds, series)
      VALUES ($1, $2, coalesce($3::timestamptz, now()), $4, $5, $6, $7, $8, $9, $10, $11,
              $12::double precision[])
      ON CONFLICT DO NOTHING)sql",
            {node_id, p.benchmark, optional(p.observed_at), number(a.period_seconds),
             number(a.window_seconds), number(a.reference_speed), a.reference, number(a.mean),
             number(a.sd), number(a.th),
             a.correlation_seconds ? std::optional<std::string>(number(*a.correlation_seconds))
                                   : std::nullopt,
             array_literal(a.series)})
      .affected();
}

// The current user's experiment of the plan's name (any cluster), else a new one of theirs
// (cluster '' until a run record names one). Another user's experiment of the same name is
// never touched. The private columns (migration 20: code) are set from the parameters,
// not EXCLUDED: reading EXCLUDED.code takes a SELECT right on it that a writer has not.
std::string upsert_experiment(pg::Connection& conn, const std::string& site_id,
                              const RoundPlan& plan) {
  const PlanExperiment& e = plan.experiment;
  const pg::Params values{e.name,
                          e.code,
                          e.workload,
                          e.parameter,
                          number(e.target_efficiency),
                          site_id,
                          optional(plan.created)};
  const pg::Result own = conn.exec(R"sql(
    SELECT experiment_id FROM hetscale.experiments WHERE owner = current_user AND name = $1
    ORDER BY cluster COLLATE "C")sql",
                                   {e.name});
  if (own.rows() > 1)
    throw Error("plan: you own " + std::to_string(own.rows()) + " experiments named '" + e.name +
                "' (on different clusters); the plan cannot say which it is");
  if (own.rows() == 1) {
    pg::Params update = values;
    update.push_back(std::string(own.text(0, 0)));
    return id(conn.exec(R"sql(
      UPDATE hetscale.experiments SET code = $2, workload = $3, parameter = $4,
        target_efficiency = $5, site_id = $6, plan_created = $7
      WHERE experiment_id = $8 AND name = $1
      RETURNING experiment_id)sql",
                        update));
  }
  return id(conn.exec(R"sql(
    INSERT INTO hetscale.experiments
      (name, code, workload, parameter, target_efficiency, site_id, plan_created)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (cluster, owner, name) DO UPDATE SET code = $2,
      workload = EXCLUDED.workload, parameter = EXCLUDED.parameter,
      target_efficiency = EXCLUDED.target_efficiency, site_id = EXCLUDED.site_id,
      plan_created = EXCLUDED.plan_created
    RETURNING experiment_id)sql",
                      values));
}

// '{1,2.5}': a PostgreSQL array literal of numbers (no quoting needed).
std::string array_literal(const std::vector<double>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + number(values[i]);
  return out + "}";
}

void upsert_set(pg::Connection& conn, const std::string& experiment_id, const PlannedSet& planned,
                const std::map<std::string, std::string>& groups,
                const std::map<std::string, std::string>& nodes) {
  const std::string set_id = id(conn.exec(
      R"sql(
    INSERT INTO hetscale.machine_sets
      (experiment_id, set_index, node_count, marked_speed, parameter_values)
    VALUES ($1, $2, $3, $4, $5::double precision[])
    ON CONFLICT (experiment_id, set_index) DO UPDATE SET node_count = EXCLUDED.node_count,
      marked_speed = EXCLUDED.marked_speed, parameter_values = EXCLUDED.parameter_values
    RETURNING machine_set_id)sql",
      {experiment_id, std::to_string(planned.set.index), std::to_string(planned.set.nodes.size()),
       number(planned.set.marked_speed), array_literal(planned.parameter_values)}));
  for (const std::string& node : planned.set.nodes) {
    conn.exec(R"sql(
      INSERT INTO hetscale.machine_set_members (machine_set_id, node_id) VALUES ($1, $2)
      ON CONFLICT DO NOTHING)sql",
              {set_id, nodes.at(node)});
  }
  for (const auto& [group, count] : planned.set.group_counts) {
    auto it = groups.find(group);
    if (it == groups.end())
      throw Error("plan: machine set " + std::to_string(planned.set.index) +
                  " counts unknown group '" + group + "'");
    conn.exec(R"sql(
      INSERT INTO hetscale.machine_set_groups (machine_set_id, group_id, node_count)
      VALUES ($1, $2, $3)
      ON CONFLICT (machine_set_id, group_id) DO UPDATE SET node_count = EXCLUDED.node_count)sql",
              {set_id, it->second, std::to_string(count)});
  }
}

// The round's row (plan files of older jobgens have no round: no row). Loading a round
// again replaces it, as the experiment's row is replaced. The private columns (migration
// 20: spec_path, spec_text, plan) are set from the parameters, as in upsert_experiment.
void upsert_round(pg::Connection& conn, const std::string& experiment_id, RoundPlan plan) {
  if (!plan.round) return;
  if (plan.experiment.spec)
    plan.experiment.spec->text = redact_connection_passwords(plan.experiment.spec->text);
  const PlanExperiment& e = plan.experiment;
  std::optional<std::string> steps, tolerance, max_rounds, precision, max_runs_per_set;
  if (e.refine) {
    steps = array_literal(e.refine->steps);
    tolerance = number(e.refine->tolerance);
    max_rounds = std::to_string(e.refine->max_rounds);
    if (e.refine->precision) precision = number(*e.refine->precision);
    if (e.refine->max_runs_per_set) max_runs_per_set = std::to_string(*e.refine->max_runs_per_set);
  }
  conn.exec(R"sql(
    INSERT INTO hetscale.plan_rounds (experiment_id, round, spec_path, spec_text, refine_steps,
      refine_tolerance, refine_max_rounds, plan, plan_created, refine_precision,
      refine_max_runs_per_set)
    VALUES ($1, $2, $3, $4, $5::double precision[], $6, $7, $8::jsonb, $9, $10, $11)
    ON CONFLICT (experiment_id, round) DO UPDATE SET spec_path = $3, spec_text = $4,
      refine_steps = EXCLUDED.refine_steps, refine_tolerance = EXCLUDED.refine_tolerance,
      refine_max_rounds = EXCLUDED.refine_max_rounds, plan = $8::jsonb,
      plan_created = EXCLUDED.plan_created, refine_precision = EXCLUDED.refine_precision,
      refine_max_runs_per_set = EXCLUDED.refine_max_runs_per_set, loaded_at = now())sql",
            {experiment_id, std::to_string(*plan.round),
             e.spec ? std::optional<std::string>(e.spec->path) : std::nullopt,
             e.spec ? std::optional<std::string>(e.spec->text) : std::nullopt, steps, tolerance,
             max_rounds, to_json(plan).dump(), optional(plan.created), precision,
             max_runs_per_set});
}

// The site, its groups and nodes, and the points of its nodes, in the caller's transaction.
SiteCounts store_site_rows(pg::Connection& conn, const PlanSite& site,
                           const std::vector<BenchmarkPoint>& points) {
  const std::string site_id = upsert_site(conn, site);
  const auto groups = upsert_groups(conn, site_id, site);
  store_group_hardware(conn, site, groups);
  const auto nodes = upsert_nodes(conn, site_id, site, groups);
  SiteCounts counts{nodes.size(), 0};
  for (const BenchmarkPoint& p : points) {
    const auto node = nodes.find(p.node);
    if (node == nodes.end() || p.marked_speed <= 0) continue;
    counts.points_added +=
        add_history(conn, node->second, p.benchmark, optional(p.observed_at), p.marked_speed);
    if (p.availability) counts.availability_added += add_availability(conn, node->second, p);
  }
  return counts;
}

}  // namespace

void load_plan(pg::Connection& conn, const RoundPlan& plan) {
  pg::Transaction tx(conn, pg::TransactionMode::load);
  // The administrator (the tables' owner, or a superuser) stores the plan's site as it
  // says; anyone else references the stored one.
  const bool stores_site =
      conn.exec("SELECT has_table_privilege('hetscale.nodes', 'UPDATE')").text(0, 0) == "t";
  std::string site_id;
  std::map<std::string, std::string> groups, nodes;
  if (stores_site) {
    site_id = upsert_site(conn, plan.site);
    groups = upsert_groups(conn, site_id, plan.site);
    nodes = upsert_nodes(conn, site_id, plan.site, groups);
    // The plan's time stamps its figures.
    for (const Node& n : plan.site.nodes)
      add_history(conn, nodes.at(n.name), plan.site.benchmark, optional(plan.created),
                  n.marked_speed);
  } else {
    site_id = stored_site(conn, plan.site);
    groups = stored_groups(conn, site_id, plan.site);
    nodes = stored_nodes(conn, site_id, plan.site);
  }
  const std::string experiment_id = upsert_experiment(conn, site_id, plan);
  for (const PlannedSet& planned : plan.machine_sets) {
    upsert_set(conn, experiment_id, planned, groups, nodes);
  }
  upsert_round(conn, experiment_id, plan);
  tx.commit();
}

SiteCounts store_site(const std::string& db, const PlanSite& site,
                      const std::vector<BenchmarkPoint>& points,
                      const std::function<void()>& before_commit) {
  Session session(db, {});
  SiteCounts counts;
  session.run([&](pg::Connection& conn) {
    require_current_schema(conn);
    pg::Transaction tx(conn, pg::TransactionMode::load);
    counts = store_site_rows(conn, site, points);
    if (before_commit) before_commit();
    tx.commit();
  });
  return counts;
}

}  // namespace hetscale::collector
