#include "common/run_environment.hpp"

#include <unistd.h>

#include <mpi.h>

#include <charconv>
#include <ctime>
#include <fstream>
#include <thread>

#include "hetscale/base/error.hpp"
#include "hetscale/base/version.hpp"
#include "hetscale/site/site_table.hpp"
#include "serial/blas.hpp"
#include "serial/fft.hpp"

namespace hetscale::kernels {
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

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "";
}

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string out(text, static_cast<std::size_t>(length));
  return out.substr(0, out.find_first_of(",\n"));
}

}  // namespace

RunEnvironment read_run_environment(const KernelOptions& options, const GetEnv& getenv) {
  RunEnvironment env;
  env.record_file = options.record;
  if (!env.record_file) {
    if (const char* file = getenv("HETSCALE_RECORD"); file != nullptr && *file != '\0') env.record_file = file;
  }
  if (options.experiment) {
    env.experiment = *options.experiment;
  } else if (const char* experiment = getenv("HETSCALE_EXPERIMENT"); experiment != nullptr) {
    env.experiment = experiment;
  }
  env.machine_set = integer_variable<int>(getenv, "HETSCALE_MACHINE_SET");
  env.repetition = integer_variable<int>(getenv, "HETSCALE_REPETITION").value_or(0);
  env.slurm.job_id = integer_variable<std::uint64_t>(getenv, "SLURM_JOB_ID");
  env.slurm.array_job_id = integer_variable<std::uint64_t>(getenv, "SLURM_ARRAY_JOB_ID");
  env.slurm.array_task_id = integer_variable<std::uint64_t>(getenv, "SLURM_ARRAY_TASK_ID");
  // The batch step's id is the word "batch" in some Slurm versions: not a number, left out.
  if (const char* step = getenv("SLURM_STEP_ID"); step != nullptr && std::string_view(step) != "batch") {
    env.slurm.step_id = integer_variable<std::uint64_t>(getenv, "SLURM_STEP_ID");
  }
  if (const char* nodes = getenv("SLURM_STEP_NODELIST"); nodes != nullptr) env.slurm.node_list = nodes;
  if (const char* cluster = getenv("SLURM_CLUSTER_NAME"); cluster != nullptr && *cluster != '\0') {
    env.slurm.cluster = cluster;
  }
  if (options.site) {
    env.site = options.site;
  } else if (const char* site = getenv("HETSCALE_SITE"); site != nullptr && *site != '\0') {
    env.site = site;
  }
  if (options.fft_wisdom) {
    if (*options.fft_wisdom != "none") env.fft_wisdom = *options.fft_wisdom;
  } else if (const char* wisdom = getenv("HETSCALE_FFTW_WISDOM"); wisdom != nullptr && *wisdom != '\0') {
    env.fft_wisdom = wisdom;
  } else {
    // Node-local and per user: wisdom is only good for the processor it was measured on.
    env.fft_wisdom = "/var/tmp/hetscale-fftw-wisdom." + std::to_string(::getuid());
  }
  if (const char* wait = getenv("HETSCALE_MPI_WAIT"); wait != nullptr && *wait != '\0')
    env.wait = parse_wait_mode(wait);
  return env;
}

std::string site_speed_unit(const std::optional<std::string>& site) {
  return site ? load_site_table(*site).speed_unit : std::string();
}

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  std::snprintf(out, sizeof out, "%.*s.%03dZ", static_cast<int>(length), text, static_cast<int>(millis));
  return out;
}

nlohmann::json fingerprint() {
  return {{"software",
           {{"hetscale", std::string(version())},
            {"mpi", mpi_library()},
            {"blas", blas_config()},
            {"fftw", fftw_version_string()},
            {"compiler", "g++ " __VERSION__}}},
          {"hardware", {{"cpu_model", cpu_model()}, {"cpus", std::thread::hardware_concurrency()}}}};
}

}  // namespace hetscale::kernels
