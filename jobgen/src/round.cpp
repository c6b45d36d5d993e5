#include "hetscale/jobgen/round.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hetscale/jobgen/problem_sizes.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/study_token.hpp"

namespace hetscale::jobgen {
namespace {

std::string site_label(const SiteTable& site) {
  return site.source.empty() ? fmt::format("site '{}'", site.name)
                             : fmt::format("site '{}' ({})", site.name, site.source.string());
}

// The site reduced to the spec's `nodes`; every name must be known.
SiteTable restrict_site(const ExperimentSpec& spec, const SiteTable& site) {
  SiteTable out = site;
  if (!spec.machine_sets.nodes) return out;
  const auto wanted = expand_hostlist(*spec.machine_sets.nodes);
  for (const std::string& name : wanted)
    if (site.find_node(name) == nullptr)
      throw ConfigError(spec.machine_sets.nodes_where,
                        fmt::format("node '{}' is not in the {}", name, site_label(site)));
  const std::set<std::string> keep(wanted.begin(), wanted.end());
  std::erase_if(out.nodes, [&](const Node& n) { return keep.count(n.name) == 0; });
  out.index();
  return out;
}

std::size_t eligible_nodes(const SiteTable& site, bool include_degraded) {
  return static_cast<std::size_t>(std::count_if(site.nodes.begin(), site.nodes.end(), [&](const Node& n) {
    return n.state == NodeState::ok || (include_degraded && n.state == NodeState::degraded);
  }));
}

void check_set_sizes(const ExperimentSpec& spec, const SiteTable& site) {
  const auto& m = spec.machine_sets;
  const std::size_t available = eligible_nodes(site, m.options.include_degraded);
  std::string scope = m.nodes ? fmt::format("of 'nodes' in the {}", site_label(site)) : fmt::format("of the {}", site_label(site));
  if (!m.options.include_degraded && eligible_nodes(site, true) > available)
    scope += "; degraded nodes count only with include_degraded = true";
  if (m.options.start > available)
    throw ConfigError(m.start_where, fmt::format("a first set of {} nodes is larger than the {} eligible nodes {}",
                                                 m.options.start, available, scope));
  if (m.options.max > available)
    throw ConfigError(m.max_where, fmt::format("a set of up to {} nodes is larger than the {} eligible nodes {}",
                                               m.options.max, available, scope));
}

std::vector<SetMember> members_of(const ExperimentSpec& spec, const SiteTable& site, const MachineSet& set) {
  std::vector<SetMember> out;
  for (const std::string& name : set.nodes) {
    const Node& node = *site.find_node(name);
    const std::uint32_t tasks = spec.slurm.tasks_per_node.value_or(node.processors);
    if (tasks > node.processors)
      throw ConfigError(spec.slurm.tasks_per_node_where,
                        fmt::format("tasks_per_node = {} is more than the {} processor{} of node '{}' ({})",
                                    tasks, node.processors, node.processors == 1 ? "" : "s", name,
                                    node.where.str()));
    out.push_back({name, node.group, node.marked_speed, tasks, node.processors / tasks});
  }
  return out;
}

double marked_speed(const std::vector<SetMember>& members) {
  double c = 0;
  for (const SetMember& m : members) c += m.marked_speed();
  return c;
}

}  // namespace

bool RoundSet::uniform_tasks() const {
  return std::all_of(members.begin(), members.end(),
                     [&](const SetMember& m) { return m.tasks == members.front().tasks; });
}

bool has_jobs(const Round& round) {
  return std::any_of(round.sets.begin(), round.sets.end(), [](const auto& s) { return !s.parameter_values.empty(); });
}

std::vector<std::uint32_t> task_repetitions(const Round& round, const RoundSet& set, std::size_t value_index) {
  if (!set.repetitions.empty()) return set.repetitions.at(value_index);
  std::vector<std::uint32_t> every(round.spec.repetitions);
  for (std::uint32_t r = 0; r < round.spec.repetitions; ++r) every[r] = r;
  return every;
}

std::uint32_t most_task_repetitions(const Round& round, const RoundSet& set) {
  if (set.repetitions.empty()) return round.spec.repetitions;
  std::size_t most = 0;
  for (const auto& reps : set.repetitions) most = std::max(most, reps.size());
  return static_cast<std::uint32_t>(most);
}

std::uint32_t RoundSet::total_tasks() const {
  std::uint32_t n = 0;
  for (const SetMember& m : members) n += m.tasks;
  return n;
}

namespace {

// Members, C and sizes of each set: everything that follows from the sets' nodes.
void complete_sets(Round& round, std::vector<MachineSet> sets) {
  const ExperimentSpec& spec = round.spec;
  round.sets.clear();
  for (MachineSet& set : sets) {
    RoundSet planned;
    planned.members = members_of(spec, round.site, set);
    set.marked_speed = marked_speed(planned.members);
    planned.set = std::move(set);
    round.sets.push_back(std::move(planned));
  }
  const double base_speed = round.sets.front().set.marked_speed;
  for (RoundSet& s : round.sets) {
    if (spec.parameter.same_on_every_set) {
      s.parameter_values = spec.parameter.values;
      continue;
    }
    const SizeScaling scaling{s.set.marked_speed / base_speed, spec.parameter.psi_floor, s.set.index};
    try {
      s.parameter_values = scaled_values(spec.workload, spec.parameter.values, scaling, spec.parameter.integer);
    } catch (const Error& e) {
      throw ConfigError(spec.workload_where, fmt::format("cannot scale the sizes to set {}: {}", s.set.index, e.what()));
    }
    s.time_limit = planned_time_limit(round, s);
  }
}

}  // namespace

Round plan_round(const ExperimentSpec& spec, const SiteTable& site, const std::string& study_token) {
  if (!study_token.empty() && !is_study_token(study_token))
    throw Error(fmt::format("'{}' is no study token ({} lowercase hexadecimal digits)", study_token,
                            study_token_length));
  Round round{spec, restrict_site(spec, site), {}, 0, study_token};
  check_set_sizes(spec, round.site);
  std::vector<MachineSet> sets;
  try {
    sets = build_machine_sets(round.site, spec.machine_sets.options);
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    throw ConfigError(spec.machine_sets.start_where, e.what());
  }
  complete_sets(round, std::move(sets));
  return round;
}

Round with_replaced_nodes(const Round& round, const std::map<std::string, std::string>& replacements) {
  Round out{round.spec, round.site, {}, round.number, round.study_token};
  std::vector<MachineSet> sets;
  for (const RoundSet& s : round.sets) {
    MachineSet set = s.set;
    for (std::string& node : set.nodes)
      if (const auto r = replacements.find(node); r != replacements.end()) node = r->second;
    set.marked_speed = 0;
    sets.push_back(std::move(set));
  }
  complete_sets(out, std::move(sets));
  return out;
}

}  // namespace hetscale::jobgen
