// The study as core's StudyPlan: the plan file's one definition (core/study_plan.hpp,
// docs/plan-file.md) is shared with the collector, which reads what jobgen writes.
#include <algorithm>

#include "hetscale/jobgen/study_files.hpp"

namespace hetscale::jobgen {
namespace {

// Nodes as the plan records them: `processors` is what the study uses on each node, so
// that per-processor speed x processors adds up to every set's C.
PlanSite plan_site(const Study& study) {
  PlanSite out{study.site.name, study.site.speed_unit, study.site.benchmark, study.site.groups,
               study.site.nodes};
  const auto& tasks = study.spec.slurm.tasks_per_node;
  for (Node& n : out.nodes) n.processors = std::min(tasks.value_or(n.processors), n.processors);
  return out;
}

}  // namespace

StudyPlan study_plan(const Study& study, const std::string& created) {
  StudyPlan plan;
  plan.created = created;
  const ExperimentSpec& spec = study.spec;
  plan.experiment = {spec.name, spec.code_label(), spec.workload.text(), spec.parameter.name,
                     spec.target_efficiency};
  plan.site = plan_site(study);
  for (const StudySet& s : study.sets) plan.machine_sets.push_back({s.set, s.parameter_values});
  return plan;
}

}  // namespace hetscale::jobgen
