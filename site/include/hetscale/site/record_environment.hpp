// What a run record takes from the environment of the process that writes it
// (docs/run-record.md, docs/contracts.md): the record file, experiment, machine set and
// repetition that jobgen's scripts export, and the Slurm ids. The kernels and
// `hetscale record step` read them here.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "hetscale/site/run_record.hpp"

namespace hetscale {

using GetEnv = std::function<const char*(const char*)>;

struct RecordEnvironment {
  std::optional<std::string> record_file;  // HETSCALE_RECORD (unset or empty: none)
  std::string experiment;                  // HETSCALE_EXPERIMENT
  std::optional<int> machine_set;          // HETSCALE_MACHINE_SET
  int repetition = 0;                      // HETSCALE_REPETITION, 0 when unset
  SlurmIds slurm;                          // SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, ...
};

/// Throws Error naming a malformed variable ("HETSCALE_REPETITION: 'x' is not a
/// non-negative integer").
[[nodiscard]] RecordEnvironment read_record_environment(const GetEnv& getenv);

/// ISO 8601 UTC with milliseconds: "2026-11-21T06:10:00.123Z".
[[nodiscard]] std::string utc_timestamp(std::chrono::system_clock::time_point when);

}  // namespace hetscale
