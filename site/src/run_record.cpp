// Writing the run record (docs/run-record.md); reading it back is run_record_parse.cpp.
#include "hetscale/site/run_record.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json rank_json(const RankTiming& rank) {
  return {{"rank", rank.rank},
          {"host", rank.host},
          {"weight", rank.weight},
          {"marked_speed", rank.marked_speed},
          {"compute_seconds", rank.compute_seconds},
          {"communication_seconds", rank.communication_seconds},
          {"wall_seconds", rank.wall_seconds}};
}

nlohmann::json node_time_json(const NodeTime& node) {
  return {{"host", node.host},
          {"tasks", node.tasks},
          {"start_time", node.start_time},
          {"end_time", node.end_time},
          {"wall_seconds", node.wall_seconds}};
}

nlohmann::json slurm_json(const SlurmIds& ids) {
  nlohmann::json out = {{"job_id", optional_json(ids.job_id)},
          {"array_job_id", optional_json(ids.array_job_id)},
          {"array_task_id", optional_json(ids.array_task_id)},
          {"step_id", optional_json(ids.step_id)},
          {"node_list", ids.node_list}};
  // Written only when known, so that records from outside Slurm keep their shape.
  if (ids.cluster) out["cluster"] = *ids.cluster;
  return out;
}

// Owns a file descriptor for the length of one append.
class AppendFile {
 public:
  explicit AppendFile(const std::filesystem::path& file)
      : fd_(::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) fail(file, "cannot open");
  }
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  ~AppendFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  void write_line(const std::filesystem::path& file, const std::string& line) {
    // One write(2) on O_APPEND: concurrent writers never interleave inside a line.
    const ssize_t written = ::write(fd_, line.data(), line.size());
    if (written < 0) fail(file, "cannot write");
    if (static_cast<std::size_t>(written) != line.size()) {
      throw Error("run record: short write to " + file.string());
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(file, "cannot close");
  }

 private:
  [[noreturn]] static void fail(const std::filesystem::path& file, const char* what) {
    throw Error(std::string("run record: ") + what + " " + file.string() + ": " +
                std::strerror(errno));
  }
  int fd_;
};

}  // namespace

bool is_run_engine(std::string_view text) {
  return text == "slurm" || text == "mpirun" || text == "simgrid";
}

std::string_view run_engine(const RunRecord& record) {
  return record.engine ? std::string_view(*record.engine) : std::string_view("slurm");
}

bool is_timed_by(std::string_view text) { return text == "program" || text == "step"; }

bool is_ranks_timed_by(std::string_view text) { return text == "step" || text == "spank"; }

std::string_view run_timed_by(const RunRecord& record) {
  return record.timed_by ? std::string_view(*record.timed_by) : std::string_view("program");
}

bool run_failed(const RunRecord& record) { return record.exit_status && *record.exit_status != 0; }

bool is_platform_hash(std::string_view text) {
  return !text.empty() &&
         text.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

bool is_weights_digest(std::string_view text) {
  if (text.empty()) return false;
  for (std::size_t at = 0;;) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string_view one = text.substr(at, end - at);
    if (one.size() != 64 || one.find_first_not_of("0123456789abcdef") != std::string_view::npos) return false;
    if (end == text.size()) return true;
    at = end + 1;
  }
}

std::optional<std::string> combine_weights_digests(std::span<const std::string> by_rank) {
  std::set<std::string> distinct;
  for (const std::string& digest : by_rank)
    if (!digest.empty()) distinct.insert(digest);
  if (distinct.empty()) return std::nullopt;
  std::string out;
  for (const std::string& digest : distinct) out += (out.empty() ? "" : ",") + digest;
  return out;
}

nlohmann::json to_json(const RunRecord& record) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankTiming& rank : record.ranks) ranks.push_back(rank_json(rank));
  nlohmann::json parameters = nlohmann::json::object();
  for (const auto& [name, value] : record.parameters) parameters[name] = value;
  nlohmann::json out = {{"schema", record.schema},
                        {"experiment", record.experiment},
                        {"code", record.code},
                        {"workload", record.workload},
                        {"parameters", std::move(parameters)},
                        {"work", record.work},
                        {"wall_seconds", record.wall_seconds},
                        {"marked_speed", record.marked_speed},
                        {"speed_unit", record.speed_unit},
                        {"weights_source", record.weights_source},
                        {"ranks", std::move(ranks)},
                        {"slurm", slurm_json(record.slurm)},
                        {"machine_set", optional_json(record.machine_set)},
                        {"repetition", record.repetition},
                        {"start_time", record.start_time},
                        {"end_time", record.end_time},
                        {"verified", record.verified},
                        {"fingerprint", record.fingerprint}};
  // Optional within schema 1: a record without them reads as before.
  if (record.engine) out["engine"] = *record.engine;
  if (record.platform_hash) out["platform_hash"] = *record.platform_hash;
  if (record.weights_digest) out["weights_digest"] = *record.weights_digest;
  if (record.timed_by) out["timed_by"] = *record.timed_by;
  if (record.exit_status) out["exit_status"] = *record.exit_status;
  if (record.ranks_timed_by) out["ranks_timed_by"] = *record.ranks_timed_by;
  if (!record.node_times.empty()) out["node_times"] = node_times_json(record.node_times);
  return out;
}

nlohmann::json node_times_json(std::span<const NodeTime> nodes) {
  nlohmann::json out = nlohmann::json::array();
  for (const NodeTime& node : nodes) out.push_back(node_time_json(node));
  return out;
}

void append_run_record(const std::filesystem::path& file, const RunRecord& record) {
  const std::string line = to_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  AppendFile out(file);
  out.write_line(file, line);
}

}  // namespace hetscale
