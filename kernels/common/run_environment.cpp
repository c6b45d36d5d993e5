#include "common/run_environment.hpp"

#include <unistd.h>

#include <mpi.h>

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
  RecordEnvironment record = read_record_environment(getenv);
  env.record_file = options.record ? options.record : record.record_file;
  env.experiment = options.experiment ? *options.experiment : record.experiment;
  env.machine_set = record.machine_set;
  env.repetition = record.repetition;
  env.slurm = std::move(record.slurm);
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
  env.wait = wait_mode_from_variable(getenv("HETSCALE_MPI_WAIT"));
  return env;
}

std::string site_speed_unit(const std::optional<std::string>& site) {
  return site ? load_site_table(*site).speed_unit : std::string();
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
