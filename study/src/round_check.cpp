// A round against Slurm: partition, node states, replacements, sbatch --test-only.
#include "hetscale/study/round_check.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "hetscale/jobgen/node_availability.hpp"
#include "hetscale/jobgen/partition_check.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

// The largest set against the partition as Slurm has it; estimated time limits are
// capped at its MaxTime.
void check_partition(jobgen::Round& round, const RoundCheck& check, const slurm::PartitionQuery& q, const Say& say) {
  const std::string& name = round.spec.slurm.partition;
  if (name.empty()) return;  // the cluster's default: submitting will tell
  switch (q.status) {
    case slurm::PartitionQuery::Status::found:
      jobgen::check_partition(round, q.partition, check.partition_named_at);
      if (q.partition.max_time_seconds) jobgen::cap_time_limits(round, *q.partition.max_time_seconds, name);
      return;
    case slurm::PartitionQuery::Status::unknown: {
      const std::string message = fmt::format("partition '{}' does not exist in this Slurm cluster", name);
      if (check.partition_by_option) throw OptionValueError(message);
      throw ConfigError(round.spec.slurm.partition_where, message);
    }
    case slurm::PartitionQuery::Status::unreachable:
      say(LineKind::note, check.note_prefix + fmt::format("Slurm not reachable ({}); machine sets not checked "
                                                          "against partition '{}'\n",
                                                          q.detail, name));
      return;
  }
}

// A directory of its own under the system's temporary one, removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "hetscale-round-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw Error("cannot create a temporary directory to test the scripts in");
    path_ = pattern;
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Node states Slurm could not be asked about: the round goes unchecked, said in a note, or
// with check.require_slurm it is refused.
CheckedRound unchecked(jobgen::Round round, const RoundCheck& check, const std::string& why, const Say& say) {
  if (check.require_slurm)
    throw Error(fmt::format("Slurm not reachable ({}): the machine sets cannot be checked against its node states",
                            why));
  const std::string& partition = round.spec.slurm.partition;
  const std::string and_partition = partition.empty() ? "" : fmt::format(" and partition '{}'", partition);
  say(LineKind::note, check.note_prefix + fmt::format("Slurm not reachable ({}); machine sets not checked against its "
                                                      "node states{}, scripts not tested with sbatch --test-only\n",
                                                      why, and_partition));
  return {std::move(round), why};
}

}  // namespace

RoundCheck jobgen_round_check(const jobgen::Round& round, const std::string& partition_option,
                              bool replace_unavailable) {
  RoundCheck check;
  check.partition_named_at = partition_option.empty() ? round.spec.slurm.partition_where.str() : partition_option;
  check.partition_by_option = !partition_option.empty();
  check.replace_unavailable = replace_unavailable;
  check.refusal = round.number == 0 ? "nothing written (--replace-unavailable swaps them for available nodes of "
                                      "their groups)"
                                    : "nothing written (resume the nodes: a round runs on the sets measured before)";
  check.note_prefix = "hetscale jobgen: note: ";
  return check;
}

RoundCheck study_round_check(const jobgen::Round& round, bool replace_unavailable) {
  RoundCheck check;
  check.partition_named_at = round.spec.slurm.partition_where.str();
  check.replace_unavailable = replace_unavailable;
  check.refusal = round.number == 0
                      ? "nothing submitted (replace_unavailable = true in the study spec's [study] swaps them for "
                        "available nodes of their groups)"
                      : "round not submitted (resume the nodes, then hetscale study resume: a round runs on the "
                        "sets measured before)";
  check.require_slurm = true;
  return check;
}

std::string unavailable_message(const std::vector<jobgen::UnavailableMember>& unavailable,
                                const std::string& refusal) {
  std::string message;
  for (const auto& u : unavailable) message += (message.empty() ? "" : "; ") + u.describe();
  return message + "; " + refusal;
}

std::string replacement_line(const jobgen::NodeReplacement& replacement, const jobgen::Round& replaced) {
  std::string speeds;
  for (std::size_t index : replacement.sets)
    for (const auto& s : replaced.sets)
      if (s.set.index == index) speeds += fmt::format("{}C{} = {:g}", speeds.empty() ? "" : ", ", index, s.set.marked_speed);
  return fmt::format("{} ({} {})", replacement.describe(), speeds, replaced.site.speed_unit);
}

CheckedRound check_round(jobgen::Round round, const RoundCheck& check, const slurm::NodeStatesQuery& nodes,
                         const slurm::PartitionQuery& partition, const Say& say) {
  if (!nodes.reachable) return unchecked(std::move(round), check, nodes.detail, say);
  check_partition(round, check, partition, say);
  const auto unavailable = jobgen::unavailable_members(round, nodes.states);
  if (unavailable.empty()) return {std::move(round), {}};
  if (!check.replace_unavailable) throw Error(unavailable_message(unavailable, check.refusal));
  auto replaced = jobgen::replace_unavailable(round, nodes.states);
  for (const auto& r : replaced.replacements) say(LineKind::result, replacement_line(r, replaced.round) + '\n');
  // The replacements against the partition too, and the new sets' time limits capped.
  if (partition.status == slurm::PartitionQuery::Status::found) check_partition(replaced.round, check, partition, say);
  return {std::move(replaced.round), {}};
}

CheckedRound check_round_against_slurm(jobgen::Round round, const RoundCheck& check, const Say& say) {
  const slurm::NodeStatesQuery nodes = slurm::query_node_states();
  slurm::PartitionQuery partition;
  if (nodes.reachable && !round.spec.slurm.partition.empty())
    partition = slurm::query_partition(round.spec.slurm.partition);
  return check_round(std::move(round), check, nodes, partition, say);
}

void test_set_scripts(const jobgen::Round& round, const std::vector<jobgen::GeneratedFile>& files,
                      const RoundCheck& check, const Say& say) {
  const ScratchDirectory scratch;
  for (const auto& file : files) {
    if (file.path.extension() != ".sbatch") continue;
    const fs::path script = scratch.path() / file.path.filename();
    std::ofstream(script, std::ios::binary) << file.content;
    const slurm::SubmissionTest t = slurm::test_submission(script.string());
    if (t.status == slurm::SubmissionTest::Status::accepted) continue;
    if (t.status == slurm::SubmissionTest::Status::unreachable) {
      if (check.require_slurm)
        throw Error(fmt::format("Slurm not reachable ({}): the set scripts cannot be tested with sbatch --test-only",
                                t.detail));
      say(LineKind::note, check.note_prefix + fmt::format("Slurm not reachable ({}); scripts not tested with sbatch "
                                                          "--test-only\n", t.detail));
      return;
    }
    const std::string key = jobgen::refused_slurm_key(t.detail);
    const std::string message = fmt::format("Slurm refuses {} (sbatch --test-only): {}", file.path.string(), t.detail);
    if (key == "partition" && check.partition_by_option)
      throw OptionValueError(fmt::format("{}: {}", check.partition_named_at, message));
    throw ConfigError(jobgen::refused_at(round.spec, key), message);
  }
}

}  // namespace hetscale::study
