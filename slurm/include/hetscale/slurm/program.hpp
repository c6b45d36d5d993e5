// Running a Slurm client (sbatch, squeue, sacct, scontrol, or a script that calls them):
// no shell, stdin from /dev/null, killed after a timeout, its output kept.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace hetscale::slurm {

struct ProgramOutput {
  int status = -1;     // exit status; -1 when the program could not be started or timed out
  std::string text;    // stdout, and stderr unless kept apart
  std::string errors;  // stderr, when kept apart
};

/// Runs argv (searched in PATH) in `directory` (empty: here) with stdin from /dev/null; no
/// shell. stderr joins stdout unless `separate_errors`. Killed after `timeout`.
ProgramOutput run_program(const std::vector<std::string>& argv, bool separate_errors, std::chrono::seconds timeout,
                          const std::string& directory = {});

}  // namespace hetscale::slurm
