// What a run record takes from the task's environment (docs/admin.md, docs/run-record.md): the
// record file, experiment, machine set, repetition and Slurm ids; plus timestamps and
// the software/hardware fingerprint.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/kernel_options.hpp"
#include "common/mpi_wait.hpp"
#include "hetscale/site/record_environment.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale::kernels {

using hetscale::GetEnv;
using hetscale::utc_timestamp;

struct RunEnvironment {
  std::optional<std::string> record_file;  // --record, else HETSCALE_RECORD
  std::string experiment;                  // --experiment, else HETSCALE_EXPERIMENT
  std::optional<int> machine_set;          // HETSCALE_MACHINE_SET
  int repetition = 0;                      // HETSCALE_REPETITION
  SlurmIds slurm;                          // SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, ...
  std::optional<std::string> site;         // --site, else HETSCALE_SITE: the site table used
  WaitMode wait = WaitMode::spin;          // HETSCALE_MPI_WAIT
  // conv2d's FFTW wisdom: --fft-wisdom, else HETSCALE_FFTW_WISDOM, else a file of the
  // user's in the node's /var/tmp; none with --fft-wisdom none.
  std::optional<std::filesystem::path> fft_wisdom;
};

/// Options win over the environment. Throws Error naming a malformed variable.
[[nodiscard]] RunEnvironment read_run_environment(const KernelOptions& options, const GetEnv& getenv);

/// The site table's speed_unit, or "" when there is no site table; throws Error when
/// the table cannot be loaded.
[[nodiscard]] std::string site_speed_unit(const std::optional<std::string>& site);

/// {"software": {hetscale, mpi, blas, fftw, compiler}, "hardware": {cpu_model, cpus}}
/// of the calling process's node.
[[nodiscard]] nlohmann::json fingerprint();

}  // namespace hetscale::kernels
