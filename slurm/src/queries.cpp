// The questions hetscale asks of Slurm (slurm/include/hetscale/slurm/queries.hpp).
#include "hetscale/slurm/queries.hpp"

#include <fmt/format.h>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/slurm/program.hpp"
#include "hetscale/slurm/sacct.hpp"

namespace hetscale::slurm {
namespace {

using Output = ProgramOutput;

// How long each client may take and how much it may print: the one place these bounds
// are set (docs/collector.md, "Slurm jobs from accounting"). A client past either is
// killed with everything it started, and the question fails saying which bound it passed.
constexpr std::size_t mib = std::size_t{1} << 20;
// scontrol retries for a minute when slurm.conf is missing or the controller is slow;
// a check that may be skipped must not hold jobgen up that long. scontrol's and squeue's
// answers are a few KiB per node or job: 64 MiB is a centre of tens of thousands of either.
constexpr ProgramLimits answer_limits{std::chrono::seconds(10), 64 * mib};
// sacct over a long window at a large site takes longer than a quick check may; its JSON
// is a few KiB per job, so 512 MiB is over a hundred thousand jobs (and several times
// that in memory once parsed).
constexpr ProgramLimits accounting_limits{std::chrono::seconds(120), 512 * mib};
// sbatch waits for a busy controller.
constexpr ProgramLimits submission_limits{std::chrono::seconds(120), 64 * mib};
// A round's submit.sh runs sbatch once per set: a study of many sets takes a while.
constexpr ProgramLimits round_submission_limits{std::chrono::seconds(600), 64 * mib};

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

// What a client said: its standard error when it wrote any there, else its output.
const std::string& client_said(const Output& out) {
  return out.errors.empty() ? out.text : out.errors;
}

// The most telling line of a client's output: its last that is not empty.
std::string last_line(std::string_view text) {
  std::string last;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  return last;
}

}  // namespace

PartitionQuery query_partition(const std::string& name) {
  PartitionQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  const Output out = run_program({"scontrol", "show", "partition", name, "--oneliner"}, false, answer_limits);
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
  const Output out = run_program({"scontrol", "show", "config"}, false, answer_limits);
  if (out.status != 0) return std::nullopt;
  return cluster_name_of_config(out.text);
}

SubmissionTest test_submission(const std::string& script) {
  SubmissionTest t;
  t.detail = missing_slurm_conf();
  if (!t.detail.empty()) return t;
  const Output out = run_program({"sbatch", "--test-only", script}, false, answer_limits);
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
  const std::string last = last_line(output);
  t.detail = last.empty() ? first_line(std::string(output)) : last;
  return t;
}

std::string submit_round(const std::string& directory) {
  const Output out =
      run_program({(std::filesystem::path(directory) / "submit.sh").string()}, false, round_submission_limits);
  // submit.sh runs sbatch once per set: killed, or one sbatch's answer lost, it may have
  // submitted some sets or all.
  if (submission_outcome_unknown(out.end, out.status, out.text)) {
    const std::string why =
        out.end == Output::End::exited ? fmt::format("submit.sh exited with status {}", out.status) : out.text;
    const std::string said = out.end == Output::End::exited ? last_line(out.text) : std::string();
    throw SubmissionOutcomeUnknown(fmt::format(
        "submitting {} ended without saying whether Slurm took every set ({}{}{}): {} names the sets submitted "
        "before it ended, and a set it does not name may be in Slurm too (squeue --me); submitting again may run a "
        "set twice",
        directory, why, said.empty() ? "" : ": ", said, (std::filesystem::path(directory) / "jobs.txt").string()));
  }
  if (out.status != 0) throw Error(fmt::format("submitting {} failed: {}", directory, out.text));
  return out.text;
}

std::uint64_t submit_job(const std::string& script, const std::string& directory,
                         const std::vector<std::uint64_t>& after_any, const std::string& comment) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  if (!after_any.empty()) {
    std::string ids;
    for (const auto id : after_any) ids += fmt::format(":{}", id);
    argv.push_back("--dependency=afterany" + ids);
  }
  if (!comment.empty()) argv.push_back("--comment=" + comment);
  argv.push_back(script);
  const Output out = run_program(argv, true, submission_limits, directory);
  const std::string said = first_line(client_said(out));
  if (submission_outcome_unknown(out.end, out.status, client_said(out)))
    throw SubmissionOutcomeUnknown(
        fmt::format("sbatch {} (in {}) ended without saying whether Slurm took the job: {}", script, directory, said));
  if (out.status != 0) throw Error(fmt::format("sbatch {} (in {}) failed: {}", script, directory, said));
  if (const auto id = parsable_job_id(out.text)) return *id;
  throw Error(fmt::format("sbatch {} printed no job id: {}", script, first_line(out.text)));
}

bool submission_outcome_unknown(ProgramOutput::End end, int status, std::string_view said) {
  switch (end) {
    case ProgramOutput::End::not_started:
      return false;
    case ProgramOutput::End::timed_out:
    case ProgramOutput::End::too_much_output:
      return true;
    case ProgramOutput::End::exited:
      break;
  }
  if (status == 0) return false;
  // Killed by a signal (128 + N), or its request sent and the answer lost: slurmctld may
  // have taken the job. "Unable to contact slurm controller" is a connection never made.
  return status > 128 || said.find("Socket timed out") != std::string_view::npos ||
         said.find("Zero Bytes were transmitted or received") != std::string_view::npos;
}

namespace {

// A time as sacct's --starttime and its JSON's times (read_sacct_json) give it: local,
// YYYY-MM-DDTHH:MM:SS.
std::string local_time_text(std::time_t t) {
  std::tm local{};
  if (localtime_r(&t, &local) == nullptr) throw Error(fmt::format("not a time: {}", t));
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%S", &local);
  return std::string(buffer.data(), n);
}

}  // namespace

std::optional<std::uint64_t> find_submitted_job(const std::string& job_name, const std::string& comment,
                                                std::time_t since) {
  if (const std::string missing = missing_slurm_conf(); !missing.empty()) throw Error(missing);
  const std::string user = invoking_user_name();
  // %F: an array's job id for each of its tasks; %k: the comment.
  const Output queued = run_program(
      {"squeue", "--noheader", "--states=all", "--user", user, "--name", job_name, "--format=%F|%k"}, true,
      answer_limits);
  if (queued.end != Output::End::exited || queued.status != 0)
    throw Error(fmt::format("squeue failed: {}", first_line(client_said(queued))));
  if (const auto id = squeue_job_with_comment(queued.text, comment)) return id;
  // A job slurmctld no longer holds: its accounting.
  const std::string from = local_time_text(since);
  const AccountingQuery q = query_accounting({"--user", user, "--name", job_name, "--starttime", from});
  switch (q.status) {
    case AccountingQuery::Status::answered:
      return sacct_job_with_comment(read_sacct_json(q.json, "sacct --json").jobs, job_name, comment, from);
    case AccountingQuery::Status::disabled:
      return std::nullopt;  // no accounting: what slurmctld no longer holds is not known anywhere
    case AccountingQuery::Status::unreachable:
      break;
  }
  throw Error(fmt::format("sacct did not answer: {}", q.detail));
}

std::optional<std::uint64_t> squeue_job_with_comment(std::string_view lines, std::string_view comment) {
  for (std::string_view line : oneliner_lines(lines)) {
    const std::size_t bar = line.find('|');
    if (bar == std::string_view::npos || line.substr(bar + 1) != comment) continue;
    if (const auto id = parsable_job_id(line.substr(0, bar))) return id;
    throw Error(fmt::format("squeue printed '{}', not a job id and a comment", line.substr(0, 100)));
  }
  return std::nullopt;
}

std::optional<std::uint64_t> sacct_job_with_comment(const std::vector<JobRecord>& jobs, std::string_view job_name,
                                                    std::string_view comment, std::string_view since) {
  for (const JobRecord& job : jobs) {
    if (job.job_name != job_name || !job.submit_time || *job.submit_time < since) continue;
    const auto kept = std::find_if(job.fields.begin(), job.fields.end(),
                                   [](const auto& field) { return field.first == "comment.job"; });
    if (kept != job.fields.end() && !kept->second.empty() && kept->second != comment) continue;
    return job.array_job_id.value_or(job.job_id);
  }
  return std::nullopt;
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
      {"squeue", "--noheader", "--format=%F", "--user", invoking_user_name(), "--jobs", ids}, true, answer_limits);
  if (out.status != 0) {
    // Jobs that have left slurmctld's memory: nothing of them is active.
    if (out.errors.find("Invalid job id") != std::string::npos) return {};
    throw Error(fmt::format("squeue failed: {}", first_line(client_said(out))));
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
  Output out = run_program(argv, true, accounting_limits);
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
  const Output nodes = run_program({"scontrol", "show", "node", "--oneliner"}, true, answer_limits);
  if (nodes.status != 0) {
    q.detail = first_line(client_said(nodes));
    return q;
  }
  const Output reservations = run_program({"scontrol", "show", "reservation", "--oneliner"}, true, answer_limits);
  if (reservations.status != 0) {
    q.detail = first_line(client_said(reservations));
    return q;
  }
  q.states.nodes = parse_scontrol_nodes(nodes.text);
  q.states.reservations = parse_scontrol_reservations(reservations.text);
  q.reachable = true;
  return q;
}

}  // namespace hetscale::slurm
