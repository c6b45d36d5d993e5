// Running a Slurm client (sbatch, squeue, sacct, scontrol, or a script that calls them):
// no shell, stdin from /dev/null, in a process group of its own that is killed after a
// timeout or once it has printed more than a bound, its output kept.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace hetscale::slurm {

/// How long a program may run and how much it may print (stdout and stderr together).
struct ProgramLimits {
  std::chrono::seconds timeout;
  std::size_t max_output_bytes;
};

struct ProgramOutput {
  enum class End {
    exited,            // `status` is its exit status (128 + N: killed by signal N)
    not_started,       // `text` says why
    timed_out,         // killed at the timeout; `text` says so
    too_much_output    // killed once it had printed more than the bound; `text` says so
  };
  End end = End::not_started;
  int status = -1;     // exit status; -1 unless it exited
  std::string text;    // stdout, and stderr unless kept apart
  std::string errors;  // stderr, when kept apart
};

/// Runs argv (searched in PATH) in `directory` (empty: here) with stdin from /dev/null; no
/// shell. stderr joins stdout unless `separate_errors`. The program runs in a process group
/// of its own, and the whole group (what it started too) is killed when it passes the
/// timeout (also after closing its outputs) or prints more than `limits.max_output_bytes`.
ProgramOutput run_program(const std::vector<std::string>& argv, bool separate_errors, const ProgramLimits& limits,
                          const std::string& directory = {});

}  // namespace hetscale::slurm
