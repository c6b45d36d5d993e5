#include "hetscale/site/record_environment.hpp"

#include <charconv>
#include <cstdint>
#include <ctime>
#include <string_view>

#include <fmt/format.h>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

template <typename Int>
std::optional<Int> integer_variable(const GetEnv& getenv, const char* name) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string_view view(text);
  Int value = 0;
  const auto [ptr, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec != std::errc() || ptr != view.data() + view.size() || value < 0) {
    throw Error(std::string(name) + ": '" + text + "' is not a non-negative integer");
  }
  return value;
}

// SLURM_STEP_ID as a numbered step's id, or none for Slurm's steps that have no number:
// the batch step (unset in 22.05 and 24.11, `-5` in 26.05: SLURM_BATCH_SCRIPT,
// 0xfffffffb, printed signed; the word "batch" in some versions), the extern and the
// interactive step. Their ids are the 15 above SLURM_MAX_NORMAL_STEP_ID (0xfffffff0),
// taken in either form: -15 to -1 or 4294967281 to 4294967295.
std::optional<std::uint64_t> slurm_step_id(const GetEnv& getenv) {
  constexpr std::int64_t max_normal_step_id = 0xfffffff0;
  constexpr std::int64_t special_step_ids = 0xffffffff - max_normal_step_id;
  const char* text = getenv("SLURM_STEP_ID");
  if (text == nullptr || *text == '\0' || std::string_view(text) == "batch") return std::nullopt;
  const std::string_view view(text);
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec == std::errc() && ptr == view.data() + view.size()) {
    if (value >= 0 && value <= max_normal_step_id) return static_cast<std::uint64_t>(value);
    if ((value >= -special_step_ids && value < 0) || (value > max_normal_step_id && value <= 0xffffffff)) {
      return std::nullopt;
    }
  }
  throw Error(std::string("SLURM_STEP_ID: '") + text + "' is not a job step's id");
}

}  // namespace

RecordEnvironment read_record_environment(const GetEnv& getenv) {
  RecordEnvironment env;
  if (const char* file = getenv("HETSCALE_RECORD"); file != nullptr && *file != '\0') env.record_file = file;
  if (const char* experiment = getenv("HETSCALE_EXPERIMENT"); experiment != nullptr) env.experiment = experiment;
  env.machine_set = integer_variable<int>(getenv, "HETSCALE_MACHINE_SET");
  env.repetition = integer_variable<int>(getenv, "HETSCALE_REPETITION").value_or(0);
  env.slurm.job_id = integer_variable<std::uint64_t>(getenv, "SLURM_JOB_ID");
  env.slurm.array_job_id = integer_variable<std::uint64_t>(getenv, "SLURM_ARRAY_JOB_ID");
  env.slurm.array_task_id = integer_variable<std::uint64_t>(getenv, "SLURM_ARRAY_TASK_ID");
  env.slurm.step_id = slurm_step_id(getenv);
  if (const char* nodes = getenv("SLURM_STEP_NODELIST"); nodes != nullptr) env.slurm.node_list = nodes;
  if (const char* cluster = getenv("SLURM_CLUSTER_NAME"); cluster != nullptr && *cluster != '\0') {
    env.slurm.cluster = cluster;
  }
  return env;
}

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:03}Z", std::string_view(text, length), millis);
}

}  // namespace hetscale
