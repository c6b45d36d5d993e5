#include "hetscale/jobgen/partition_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "hetscale/jobgen/time_limit.hpp"
#include "hetscale/site/hostlist.hpp"
#include "scontrol_fields.hpp"

namespace hetscale::jobgen {

SlurmPartition parse_scontrol_partition(std::string_view text) {
  const auto name = scontrol_field(text, "PartitionName");
  const auto nodes = scontrol_field(text, "Nodes");
  if (!name || !nodes)
    throw Error(fmt::format("unexpected scontrol output: '{}'", text.substr(0, 200)));
  SlurmPartition out{*name, {}, std::nullopt};
  if (*nodes != "(null)") out.nodes = expand_hostlist(*nodes);
  if (const auto max_time = scontrol_field(text, "MaxTime"); max_time && *max_time != "UNLIMITED") {
    out.max_time_seconds = parse_slurm_time(*max_time);
    if (!out.max_time_seconds)
      throw Error(fmt::format("unexpected MaxTime '{}' in scontrol output: '{}'", *max_time, text.substr(0, 200)));
  }
  return out;
}

void check_partition(const Round& round, const SlurmPartition& partition,
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

