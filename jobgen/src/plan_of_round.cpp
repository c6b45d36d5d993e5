// The round as the site library's RoundPlan: the plan file's one definition (site/round_plan.hpp,
// docs/plan-file.md) is shared with the collector, which reads what jobgen writes.
#include <fmt/format.h>

#include <algorithm>

#include "hetscale/base/error.hpp"
#include "hetscale/base/redaction.hpp"
#include "hetscale/jobgen/round_files.hpp"

namespace hetscale::jobgen {
namespace {

// Nodes as the plan records them: `processors` is what the round uses on each node, so
// that per-processor speed x processors adds up to every set's C.
PlanSite plan_site(const Round& round) {
  PlanSite out{round.site.name, round.site.speed_unit, round.site.benchmark, round.site.groups,
               round.site.nodes};
  const auto& tasks = round.spec.slurm.tasks_per_node;
  for (Node& n : out.nodes) n.processors = std::min(tasks.value_or(n.processors), n.processors);
  return out;
}

PlanExperiment plan_experiment(const ExperimentSpec& spec) {
  PlanExperiment out;
  out.name = spec.name;
  out.code = spec.code_label();
  out.workload = spec.workload.text();
  out.parameter = spec.parameter.name;
  out.target_efficiency = spec.target_efficiency;
  if (!spec.text.empty())
    out.spec = PlanSpec{spec.source.string(), redact_connection_passwords(spec.text)};
  out.refine = PlanRefine{spec.refine.steps, spec.refine.tolerance, spec.refine.max_rounds, spec.refine.precision,
                          spec.refine.precision ? std::optional(spec.refine.max_runs_per_set) : std::nullopt};
  return out;
}

SiteTable site_table(const PlanSite& site) {
  SiteTable out;
  out.name = site.name;
  out.speed_unit = site.speed_unit;
  out.benchmark = site.benchmark;
  out.groups = site.groups;
  out.nodes = site.nodes;
  out.index();
  return out;
}

RoundSet round_set(const PlannedSet& planned, const SiteTable& site) {
  RoundSet out;
  out.set = planned.set;
  out.parameter_values = planned.parameter_values;
  out.repetitions = planned.repetitions;
  for (const std::string& name : planned.set.nodes) {
    const Node& node = *site.find_node(name);  // the plan's reader checked the names
    out.members.push_back({name, node.group, node.marked_speed, node.processors});
  }
  return out;
}

}  // namespace

RoundPlan plan_of_round(const Round& round, const std::string& created) {
  RoundPlan plan;
  plan.created = created;
  plan.round = round.number;
  if (!round.study_token.empty()) plan.study_token = round.study_token;
  plan.experiment = plan_experiment(round.spec);
  plan.site = plan_site(round);
  for (const RoundSet& s : round.sets) plan.machine_sets.push_back({s.set, s.parameter_values, s.repetitions});
  return plan;
}

Round round_from_plan(const ExperimentSpec& spec, const RoundPlan& plan) {
  const PlanExperiment& e = plan.experiment;
  if (e.name != spec.name || e.workload != spec.workload.text() ||
      e.parameter != spec.parameter.name || e.target_efficiency != spec.target_efficiency)
    throw Error(fmt::format(
        "the plan of experiment '{}' (workload {}, parameter {}, target {:g}) was not made "
        "from the spec of '{}' (workload {}, parameter {}, target {:g})",
        e.name, e.workload, e.parameter, e.target_efficiency, spec.name, spec.workload.text(),
        spec.parameter.name, spec.target_efficiency));
  Round round{spec, site_table(plan.site), {}, plan.round.value_or(0), plan.study_token.value_or("")};
  for (const PlannedSet& planned : plan.machine_sets) {
    round.sets.push_back(round_set(planned, round.site));
    round.sets.back().time_limit = planned_time_limit(round, round.sets.back());
  }
  return round;
}

}  // namespace hetscale::jobgen
