// `sacct --json` output (slurm/src/sacct.cpp, every release's shapes), read by `hetscale collect --sacct` and
// `hetscale status`. Any text gives jobs or raises ConfigError; every job has a positive
// id, a cluster, a state and its position, and the ended ones all have a start time.
#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/collector/slurm_jobs.hpp"
#include "hetscale/slurm/sacct.hpp"

int hetscale_fuzz_sacct(const std::uint8_t* data, std::size_t size) {
  const std::string text(hetscale::fuzz::text_of(data, size));
  std::vector<hetscale::slurm::JobRecord> jobs;
  try {
    jobs = hetscale::slurm::read_sacct_json(text, "fuzz.json").jobs;
  } catch (const hetscale::ConfigError&) {
    return 0;
  }
  std::uint32_t position = 0;
  for (const auto& job : jobs) {
    hetscale::fuzz::require(job.job_id > 0, "job id not positive");
    hetscale::fuzz::require(!job.cluster.empty(), "job without cluster");
    hetscale::fuzz::require(!job.state.empty(), "job without state");
    hetscale::fuzz::require(job.line == ++position, "job position out of order");
  }
  for (const auto& job : hetscale::collector::ended_jobs(jobs)) {
    hetscale::fuzz::require(!job.start_time.empty(), "ended job without start time");
    hetscale::fuzz::require(hetscale::slurm::is_final_job_state(job.state), "stored job has not ended");
  }
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_sacct(data, size);
}
#endif
