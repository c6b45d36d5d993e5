// HPL through Debian's HPC Challenge (`hpcc`), timed by HPL itself (docs/workload.md,
// "HPL through hpcc"): `hetscale record hpcc` runs as every task of a job step
// (srun ... hetscale record hpcc ...). Each task writes the same hpccinf.txt (problem size
// N, block size NB, the P x Q grid from the step's number of ranks) atomically into the
// step's own directory and runs hpcc there; rank 0 then reads HPL's own wall time and
// residual check from hpccoutf.txt and appends the run record (`timed_by: "program"`):
// hpcc also runs DGEMM, STREAM, PTRANS, RandomAccess, FFT and the latency tests, whose
// time is no part of HPL's.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/site/record_environment.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale::jobgen {

/// HPL's process grid: P x Q = ranks with P <= Q, as square as the divisors allow.
struct HpccGrid {
  std::size_t p = 1;
  std::size_t q = 1;
};

[[nodiscard]] HpccGrid hpcc_process_grid(std::size_t ranks);

/// The text of hpccinf.txt: one HPL problem of size n, block size nb, on the grid; HPL's
/// other settings as in hpcc's sample input; PTRANS with no sizes of its own.
[[nodiscard]] std::string hpcc_input_text(long long n, int nb, HpccGrid grid);

/// What hpccoutf.txt says of HPL (its last summary section).
struct HpccResult {
  double hpl_seconds = 0;  // HPL_time: HPL's wall time of its solve
  double hpl_tflops = 0;   // HPL_Tflops: (2/3 N^3 + 3/2 N^2) / HPL_time, as HPL counts
  long long n = 0;         // HPL_N
  int nb = 0;              // HPL_NB
  std::size_t p = 0;       // HPL_nprow
  std::size_t q = 0;       // HPL_npcol
  bool passed = false;     // HPL's scaled residual check passed
};

/// Reads HPL's figures from the text of hpccoutf.txt. Throws Error naming `origin` when
/// there is no summary section or a figure is missing or not a number.
[[nodiscard]] HpccResult read_hpcc_output(std::string_view text, std::string_view origin);

/// What `hetscale record hpcc` is given.
struct HpccStep {
  std::string workload;         // the spec's workload formula
  std::string parameter;        // the parameter's name ("N")
  double parameter_value = 0;   // HPL's N
  int block_size = 80;          // HPL's NB
  std::filesystem::path base;   // where the step's directory is made
  std::vector<std::string> hpcc{"hpcc"};  // the program and its arguments
};

/// The step's own directory under `base`: hpcc-<job id>.<step id>, the same for every task.
[[nodiscard]] std::filesystem::path hpcc_step_directory(const std::filesystem::path& base, const GetEnv& getenv);

/// One host per rank of the step, in rank order: the step's nodes (SLURM_STEP_NODELIST)
/// with SLURM_STEP_TASKS_PER_NODE ranks each, placed in blocks as srun does by default.
[[nodiscard]] std::vector<std::string> step_rank_hosts(const GetEnv& getenv);

/// The run record of rank 0: W from the formula at N, T = HPL_time, every rank the
/// nominal share 1/p (HPL deals out the matrix in equal blocks), C = HETSCALE_SYSTEM_SPEED
/// and the speed unit of the site table HETSCALE_SITE when set. Throws Error when HPL
/// solved another N or on another number of ranks than the step's.
[[nodiscard]] RunRecord hpcc_run_record(const HpccStep& step, const HpccResult& result,
                                        const std::vector<std::string>& rank_hosts, const GetEnv& getenv,
                                        const RecordEnvironment& environment);

/// What one task did.
struct HpccTaskResult {
  int exit_status = 0;           // hpcc's, whatever became of the record
  bool record_written = false;
  std::optional<std::string> not_written_because;  // rank 0's record was due and could not be made or written: why
  std::filesystem::path directory;
  std::string message;           // one line for the task's output
};

/// The whole task: the step's directory and hpccinf.txt, hpcc run there and waited for,
/// and on rank 0 (SLURM_PROCID 0) after a successful run the record appended to
/// HETSCALE_RECORD (none when it is unset). Throws Error when not run as a task of a Slurm
/// step (SLURM_PROCID, SLURM_NTASKS) or when hpcc cannot be started; once hpcc has run,
/// a record that cannot be made (hpccoutf.txt does not read, HPL solved another N) or
/// written is `not_written_because` and hpcc's exit status is kept.
HpccTaskResult run_hpcc_task(const HpccStep& step, const GetEnv& getenv);

}  // namespace hetscale::jobgen
