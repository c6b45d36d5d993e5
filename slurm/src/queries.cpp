// The questions hetscale asks of Slurm (slurm/include/hetscale/slurm/queries.hpp).
#include "hetscale/slurm/queries.hpp"

#include <fmt/format.h>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/slurm/program.hpp"

namespace hetscale::slurm {
namespace {

using Output = ProgramOutput;

// scontrol retries for a minute when slurm.conf is missing or the controller is slow;
// a check that may be skipped must not hold jobgen up that long.
constexpr std::chrono::seconds answer_timeout{10};
// sacct over a long window at a large site takes longer than a quick check may.
constexpr std::chrono::seconds accounting_timeout{120};

}  // namespace

namespace {

// Where Slurm cannot be asked because SLURM_CONF names no file: Slurm's own wait for a
// missing configuration file is a minute of retries. Empty when it may be asked.
std::string missing_slurm_conf() {
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && !std::filesystem::exists(conf))
    return fmt::format("SLURM_CONF names no file: {}", conf);
  return {};
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

PartitionQuery query_partition(const std::string& name) {
  PartitionQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  const Output out = run_program({"scontrol", "show", "partition", name, "--oneliner"}, false, answer_timeout);
  if (out.status == 0) {
    try {
      q.partition = parse_scontrol_partition(out.text);
      q.status = PartitionQuery::Status::found;
    } catch (const Error& e) {
      q.detail = e.what();
    }
    return q;
  }
  // "Partition batch not found" is Slurm's answer; anything else means it was not asked.
  if (out.status > 0 && out.text.find("not found") != std::string::npos &&
      out.text.find("Partition") != std::string::npos) {
    q.status = PartitionQuery::Status::unknown;
    return q;
  }
  q.detail = first_line(out.text);
  return q;
}

std::string invoking_user_name() {
  const uid_t uid = ::geteuid();
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr && *found->pw_name != '\0')
    return found->pw_name;
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  throw Error(fmt::format("cannot tell the name of user {} (no password entry, no USER)", uid));
}

std::optional<std::uint64_t> own_job_id() {
  const char* id = std::getenv("SLURM_JOB_ID");
  return id == nullptr ? std::nullopt : parsable_job_id(id);
}

std::optional<std::string> query_cluster_name() {
  if (!missing_slurm_conf().empty()) return std::nullopt;
  const Output out = run_program({"scontrol", "show", "config"}, false, answer_timeout);
  if (out.status != 0) return std::nullopt;
  return cluster_name_of_config(out.text);
}

SubmissionTest test_submission(const std::string& script) {
  SubmissionTest t;
  t.detail = missing_slurm_conf();
  if (!t.detail.empty()) return t;
  const Output out = run_program({"sbatch", "--test-only", script}, false, answer_timeout);
  return test_only_outcome(out.status, out.text);
}

SubmissionTest test_only_outcome(int status, std::string_view output) {
  SubmissionTest t;
  if (status == 0) {
    t.status = SubmissionTest::Status::accepted;
    return t;
  }
  // Slurm's refusals: "allocation failure: Invalid qos specification", "sbatch: error:
  // invalid partition specified: x", "sbatch: unrecognized option '--x'". Not being able
  // to talk to the controller is no refusal.
  const bool unreachable = status < 0 || output.find("Unable to contact") != std::string_view::npos ||
                           output.find("Socket timed out") != std::string_view::npos ||
                           output.find("fetch config") != std::string_view::npos;
  if (!unreachable) t.status = SubmissionTest::Status::refused;
  // The most telling line: Slurm's last.
  std::string last;
  std::istringstream lines{std::string(output)};
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  t.detail = last.empty() ? first_line(std::string(output)) : last;
  return t;
}

std::string submit_round(const std::string& directory) {
  // sbatch waits for a busy controller; a study of many sets takes a while to submit.
  const Output out = run_program({(std::filesystem::path(directory) / "submit.sh").string()}, false,
                                 std::chrono::seconds(600));
  if (out.status != 0) throw Error(fmt::format("submitting {} failed: {}", directory, out.text));
  return out.text;
}

std::uint64_t submit_job(const std::string& script, const std::string& directory,
                         const std::vector<std::uint64_t>& after_any) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  if (!after_any.empty()) {
    std::string ids;
    for (const auto id : after_any) ids += fmt::format(":{}", id);
    argv.push_back("--dependency=afterany" + ids);
  }
  argv.push_back(script);
  const Output out = run_program(argv, true, std::chrono::seconds(120), directory);
  if (out.status != 0)
    throw Error(fmt::format("sbatch {} (in {}) failed: {}", script, directory,
                            first_line(out.errors.empty() ? out.text : out.errors)));
  if (const auto id = parsable_job_id(out.text)) return *id;
  throw Error(fmt::format("sbatch {} printed no job id: {}", script, first_line(out.text)));
}

std::optional<std::uint64_t> parsable_job_id(std::string_view output) {
  // --parsable prints "id" or "id;cluster".
  const std::string_view id = output.substr(0, output.find_first_of(";\n"));
  if (id.empty() || id.size() > 19 || id.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  const std::uint64_t value = std::stoull(std::string(id));
  if (value == 0) return std::nullopt;
  return value;
}

std::vector<std::uint64_t> active_jobs(const std::vector<std::uint64_t>& job_ids) {
  if (job_ids.empty()) return {};
  if (const std::string missing = missing_slurm_conf(); !missing.empty()) throw Error(missing);
  std::string ids;
  for (const auto id : job_ids) ids += fmt::format("{}{}", ids.empty() ? "" : ",", id);
  // %F: the array's job id for each of its tasks (a single job's own id).
  const Output out = run_program(
      {"squeue", "--noheader", "--format=%F", "--user", invoking_user_name(), "--jobs", ids}, true, answer_timeout);
  if (out.status != 0) {
    // Jobs that have left slurmctld's memory: nothing of them is active.
    if (out.errors.find("Invalid job id") != std::string::npos) return {};
    throw Error(fmt::format("squeue failed: {}", first_line(out.errors.empty() ? out.text : out.errors)));
  }
  return squeue_job_ids(out.text);
}

std::vector<std::uint64_t> squeue_job_ids(std::string_view output) {
  std::vector<std::uint64_t> ids;
  for (std::string_view line : oneliner_lines(output)) {
    const auto id = parsable_job_id(line);
    if (!id) throw Error(fmt::format("squeue printed '{}', not a job id", line.substr(0, 100)));
    if (std::find(ids.begin(), ids.end(), *id) == ids.end()) ids.push_back(*id);
  }
  return ids;
}

AccountingQuery query_accounting(const std::vector<std::string>& sacct_arguments) {
  AccountingQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  std::vector<std::string> argv = {"sacct", "--json"};
  argv.insert(argv.end(), sacct_arguments.begin(), sacct_arguments.end());
  Output out = run_program(argv, true, accounting_timeout);
  return accounting_outcome(out.status, std::move(out.text), out.errors);
}

AccountingQuery accounting_outcome(int status, std::string output, std::string_view errors) {
  AccountingQuery q;
  if (status == 0) {
    q.status = AccountingQuery::Status::answered;
    q.json = std::move(output);
    return q;
  }
  const std::string said = errors.empty() ? output : std::string(errors);
  // sacct's words where slurm.conf has AccountingStorageType=accounting_storage/none.
  if (said.find("accounting storage is disabled") != std::string::npos) q.status = AccountingQuery::Status::disabled;
  q.detail = first_line(said);
  return q;
}

NodeStatesQuery query_node_states() {
  NodeStatesQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  const Output nodes = run_program({"scontrol", "show", "node", "--oneliner"}, true, answer_timeout);
  if (nodes.status != 0) {
    q.detail = first_line(nodes.errors.empty() ? nodes.text : nodes.errors);
    return q;
  }
  const Output reservations = run_program({"scontrol", "show", "reservation", "--oneliner"}, true, answer_timeout);
  if (reservations.status != 0) {
    q.detail = first_line(reservations.errors.empty() ? reservations.text : reservations.errors);
    return q;
  }
  q.states.nodes = parse_scontrol_nodes(nodes.text);
  q.states.reservations = parse_scontrol_reservations(reservations.text);
  q.reachable = true;
  return q;
}

}  // namespace hetscale::slurm
