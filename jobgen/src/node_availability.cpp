#include "hetscale/jobgen/node_availability.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "hetscale/base/error.hpp"

namespace hetscale::jobgen {
namespace {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  for (std::size_t at = 0;;) {
    const std::size_t end = text.find(separator, at);
    out.emplace_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

// The state to report from scontrol's "BASE+FLAG+FLAG" (sinfo-style names and a
// trailing '*' for "not responding" are read too); empty when the node can run a job.
std::string blocking_state(std::string_view slurm_state) {
  std::string text(slurm_state);
  bool not_responding = false;
  while (!text.empty() && std::string_view("*~#!%$@^-").find(text.back()) != std::string_view::npos) {
    not_responding = not_responding || text.back() == '*';
    text.pop_back();
  }
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  const auto words = split(text, '+');
  const std::string& base = words.front();
  const auto has = [&](std::string_view flag) {
    return std::find(words.begin() + 1, words.end(), flag) != words.end();
  };
  if (base == "DOWN") return "DOWN";
  if (base == "FAIL" || base == "FAILING" || has("FAIL")) return "FAIL";
  if (not_responding || base == "NOT_RESPONDING" || has("NOT_RESPONDING")) return "NOT_RESPONDING";
  if (base == "DRAINED" || base == "DRAINING") return base;
  if (base == "DRAIN" || has("DRAIN")) {
    const bool busy = base == "ALLOCATED" || base == "MIXED" || base == "COMPLETING" || has("COMPLETING");
    return busy ? "DRAINING" : "DRAINED";
  }
  return {};
}

std::string set_range(const std::vector<std::size_t>& sets) {
  if (sets.size() == 1) return fmt::format("set {}", sets.front());
  return fmt::format("sets {}-{}", sets.front(), sets.back());
}

}  // namespace

std::string Unavailability::describe() const {
  if (state == "RESERVED")
    return end_time.empty() ? fmt::format("in reservation '{}'", reason)
                            : fmt::format("in reservation '{}' (until {})", reason, end_time);
  if (state == "UNKNOWN") return "not a node of this Slurm cluster";
  return reason.empty() ? state : fmt::format("{} (reason \"{}\")", state, reason);
}

std::optional<Unavailability> unavailability(const slurm::NodeStates& states, const std::string& node,
                                             const std::string& usable_reservation) {
  const auto found = std::find_if(states.nodes.begin(), states.nodes.end(),
                                  [&](const slurm::Node& n) { return n.name == node; });
  if (found == states.nodes.end()) return Unavailability{"UNKNOWN", {}, {}};
  if (std::string state = blocking_state(found->state); !state.empty())
    return Unavailability{std::move(state), found->reason, {}};
  for (const slurm::Reservation& r : states.reservations) {
    if (!r.active || r.name == usable_reservation) continue;
    if (std::find(r.nodes.begin(), r.nodes.end(), node) != r.nodes.end())
      return Unavailability{"RESERVED", r.name, r.end_time};
  }
  return std::nullopt;
}

std::string UnavailableMember::describe() const {
  return fmt::format("set {} member {} is {}", set_index, node, why.describe());
}

std::vector<UnavailableMember> unavailable_members(const Round& round, const slurm::NodeStates& states) {
  std::vector<UnavailableMember> out;
  std::set<std::string> seen;
  for (const RoundSet& set : round.sets) {
    if (set.parameter_values.empty()) continue;  // no job (a refinement round)
    for (const SetMember& m : set.members) {
      if (!seen.insert(m.node).second) continue;
      if (auto why = unavailability(states, m.node, round.spec.slurm.reservation))
        out.push_back({set.set.index, m.node, m.group, std::move(*why)});
    }
  }
  return out;
}

std::string NodeReplacement::describe() const {
  return fmt::format("{} (group {}, {}) replaced by {} in {}", replaced.node, replaced.group,
                     replaced.why.describe(), replacement, set_range(sets));
}

ReplacedRound replace_unavailable(const Round& round, const slurm::NodeStates& states) {
  const auto unavailable = unavailable_members(round, states);
  ReplacedRound out{round, {}};
  if (unavailable.empty()) return out;
  std::set<std::string> taken;  // every set's nodes (the largest holds them all) and the replacements
  for (const RoundSet& s : round.sets) taken.insert(s.set.nodes.begin(), s.set.nodes.end());
  const bool degraded_too = round.spec.machine_sets.options.include_degraded;
  std::map<std::string, std::string> swaps;
  for (const UnavailableMember& u : unavailable) {
    const Node* spare = nullptr;
    for (const Node& n : round.site.nodes) {
      const bool eligible = n.state == NodeState::ok || (degraded_too && n.state == NodeState::degraded);
      if (n.group != u.group || !eligible || taken.count(n.name) != 0) continue;
      if (unavailability(states, n.name, round.spec.slurm.reservation)) continue;
      spare = &n;
      break;
    }
    if (spare == nullptr)
      throw Error(fmt::format("group '{}' has no available node to replace {} ({} is {}): every other eligible node "
                              "of the group is in the sets or unavailable",
                              u.group, u.node, u.node, u.why.describe()));
    taken.insert(spare->name);
    swaps[u.node] = spare->name;
    NodeReplacement r{u, spare->name, {}};
    for (const RoundSet& s : round.sets)
      if (std::find(s.set.nodes.begin(), s.set.nodes.end(), u.node) != s.set.nodes.end())
        r.sets.push_back(s.set.index);
    out.replacements.push_back(std::move(r));
  }
  out.round = with_replaced_nodes(round, swaps);
  return out;
}

}  // namespace hetscale::jobgen
