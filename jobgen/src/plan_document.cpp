// The plan file in the collector's format (core's study_plan.hpp on the collector
// branch). Kept to this one function so that it can switch to that type's to_json.
#include <fmt/format.h>

#include "hetscale/jobgen/study_files.hpp"

namespace hetscale::jobgen {
namespace {

// Nodes as the plan records them: `processors` is what the study uses on each node, so
// that per-processor speed x processors adds up to every set's C.
nlohmann::json site_json(const Study& study) {
  const ExperimentSpec& spec = study.spec;
  nlohmann::json groups = nlohmann::json::array();
  for (const Group& g : study.site.groups) groups.push_back({{"name", g.name}, {"marked_speed", g.marked_speed}});
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : study.site.nodes) {
    const std::uint32_t used = std::min(spec.slurm.tasks_per_node.value_or(n.processors), n.processors);
    nodes.push_back({{"name", n.name},
                     {"group", n.group},
                     {"processors", used},
                     {"marked_speed", n.marked_speed},
                     {"state", std::string(to_string(n.state))}});
  }
  return {{"name", study.site.name},
          {"speed_unit", study.site.speed_unit},
          {"benchmark", study.site.benchmark},
          {"groups", std::move(groups)},
          {"nodes", std::move(nodes)}};
}

nlohmann::json set_json(const StudySet& s) {
  nlohmann::json counts = nlohmann::json::array();
  for (const auto& [group, count] : s.set.group_counts) counts.push_back({{"group", group}, {"nodes", count}});
  return {{"index", s.set.index},
          {"nodes", s.set.nodes},
          {"group_counts", std::move(counts)},
          {"marked_speed", s.set.marked_speed},
          {"parameter_values", s.parameter_values}};
}

}  // namespace

nlohmann::json plan_document(const Study& study, const std::string& created) {
  nlohmann::json sets = nlohmann::json::array();
  for (const StudySet& s : study.sets) sets.push_back(set_json(s));
  return {{"schema", 1},
          {"created", created},
          {"experiment",
           {{"name", study.spec.name},
            {"code", study.spec.code_label()},
            {"workload", study.spec.workload.text()},
            {"parameter", study.spec.parameter.name},
            {"target_efficiency", study.spec.target_efficiency}}},
          {"site", site_json(study)},
          {"machine_sets", std::move(sets)}};
}

}  // namespace hetscale::jobgen
