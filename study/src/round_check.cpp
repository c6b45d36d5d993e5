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
void check_partition(jobgen::Round& round, const RoundCheck& check, const PartitionQuery& q, std::ostream& notes) {
  const std::string& name = round.spec.slurm.partition;
  if (name.empty()) return;  // the cluster's default: submitting will tell
  switch (q.status) {
    case PartitionQuery::Status::found:
      jobgen::check_partition(round, q.partition, check.partition_named_at);
      if (q.partition.max_time_seconds) jobgen::cap_time_limits(round, *q.partition.max_time_seconds, name);
      return;
    case PartitionQuery::Status::unknown: {
      const std::string message = fmt::format("partition '{}' does not exist in this Slurm cluster", name);
      if (check.partition_by_option) throw OptionValueError(message);
      throw ConfigError(round.spec.slurm.partition_where, message);
    }
    case PartitionQuery::Status::unreachable:
      notes << check.note_prefix
            << fmt::format("Slurm not reachable ({}); machine sets not checked against partition '{}'\n", q.detail,
                           name);
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

}  // namespace

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

CheckedRound check_round(jobgen::Round round, const RoundCheck& check, const NodeStatesQuery& nodes,
                         const PartitionQuery& partition, std::ostream& out, std::ostream& notes) {
  if (!nodes.reachable) return {std::move(round), nodes.detail};
  check_partition(round, check, partition, notes);
  const auto unavailable = jobgen::unavailable_members(round, nodes.states);
  if (unavailable.empty()) return {std::move(round), {}};
  if (!check.replace_unavailable) throw Error(unavailable_message(unavailable, check.refusal));
  auto replaced = jobgen::replace_unavailable(round, nodes.states);
  for (const auto& r : replaced.replacements) out << replacement_line(r, replaced.round) << '\n';
  // The replacements against the partition too, and the new sets' time limits capped.
  if (partition.status == PartitionQuery::Status::found) check_partition(replaced.round, check, partition, notes);
  return {std::move(replaced.round), {}};
}

CheckedRound check_round_against_slurm(jobgen::Round round, const RoundCheck& check, std::ostream& out,
                                       std::ostream& notes) {
  const NodeStatesQuery nodes = query_node_states();
  PartitionQuery partition;
  if (nodes.reachable && !round.spec.slurm.partition.empty()) partition = query_partition(round.spec.slurm.partition);
  return check_round(std::move(round), check, nodes, partition, out, notes);
}

std::string test_set_scripts(const jobgen::Round& round, const std::vector<jobgen::GeneratedFile>& files,
                             const RoundCheck& check) {
  const ScratchDirectory scratch;
  for (const auto& file : files) {
    if (file.path.extension() != ".sbatch") continue;
    const fs::path script = scratch.path() / file.path.filename();
    std::ofstream(script, std::ios::binary) << file.content;
    const SubmissionTest t = test_submission(script.string());
    if (t.status == SubmissionTest::Status::accepted) continue;
    if (t.status == SubmissionTest::Status::unreachable) return t.detail;
    const std::string key = jobgen::refused_slurm_key(t.detail);
    const std::string message = fmt::format("Slurm refuses {} (sbatch --test-only): {}", file.path.string(), t.detail);
    if (key == "partition" && check.partition_by_option)
      throw OptionValueError(fmt::format("{}: {}", check.partition_named_at, message));
    throw ConfigError(jobgen::refused_at(round.spec, key), message);
  }
  return {};
}

}  // namespace hetscale::study
