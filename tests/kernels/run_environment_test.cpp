#include "common/run_environment.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale::kernels {
namespace {

GetEnv fake(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

TEST(RunEnvironment, SlurmAndHetscaleVariables) {
  KernelOptions options;
  const RunEnvironment env = read_run_environment(
      options, fake({{"HETSCALE_RECORD", "/tmp/r.jsonl"}, {"HETSCALE_EXPERIMENT", "e1"}, {"HETSCALE_MACHINE_SET", "2"},
                     {"HETSCALE_REPETITION", "3"}, {"SLURM_JOB_ID", "101"}, {"SLURM_ARRAY_JOB_ID", "100"},
                     {"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NODELIST", "n[1-2]"},
                     {"SLURM_CLUSTER_NAME", "hetscale"}}));
  EXPECT_EQ(env.record_file, "/tmp/r.jsonl");
  EXPECT_EQ(env.experiment, "e1");
  EXPECT_EQ(env.machine_set, 2);
  EXPECT_EQ(env.repetition, 3);
  EXPECT_EQ(env.slurm.job_id, 101u);
  EXPECT_EQ(env.slurm.array_job_id, 100u);
  EXPECT_EQ(env.slurm.array_task_id, 1u);
  EXPECT_EQ(env.slurm.step_id, 0u);
  EXPECT_EQ(env.slurm.node_list, "n[1-2]");
  EXPECT_EQ(env.slurm.cluster, "hetscale");
  EXPECT_FALSE(read_run_environment(options, fake({{"SLURM_CLUSTER_NAME", ""}})).slurm.cluster.has_value());
}

TEST(RunEnvironment, FftWisdomFromOptionThenVariableThenTheUsersFileInVarTmp) {
  KernelOptions options;
  EXPECT_EQ(read_run_environment(options, fake({})).fft_wisdom,
            "/var/tmp/hetscale-fftw-wisdom." + std::to_string(::getuid()));
  EXPECT_EQ(read_run_environment(options, fake({{"HETSCALE_FFTW_WISDOM", "/scratch/w"}})).fft_wisdom,
            "/scratch/w");
  options.fft_wisdom = "mine";
  EXPECT_EQ(read_run_environment(options, fake({{"HETSCALE_FFTW_WISDOM", "/scratch/w"}})).fft_wisdom,
            "mine");
  options.fft_wisdom = "none";
  EXPECT_FALSE(read_run_environment(options, fake({{"HETSCALE_FFTW_WISDOM", "/scratch/w"}})).fft_wisdom);
}

TEST(RunEnvironment, OptionsWinAndAbsentIsEmpty) {
  KernelOptions options;
  options.record = "mine.jsonl";
  options.experiment = "cli";
  const RunEnvironment env = read_run_environment(
      options, fake({{"HETSCALE_RECORD", "/tmp/r.jsonl"}, {"HETSCALE_EXPERIMENT", "e1"}, {"SLURM_STEP_ID", "batch"}}));
  EXPECT_EQ(env.record_file, "mine.jsonl");
  EXPECT_EQ(env.experiment, "cli");
  EXPECT_FALSE(env.machine_set);
  EXPECT_EQ(env.repetition, 0);
  EXPECT_FALSE(env.slurm.job_id);
  EXPECT_FALSE(env.slurm.step_id);
}

TEST(RunEnvironment, MalformedNumberIsNamed) {
  try {
    (void)read_run_environment({}, fake({{"HETSCALE_REPETITION", "two"}}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "HETSCALE_REPETITION: 'two' is not a non-negative integer");
  }
}

TEST(RunEnvironment, WaitModeComesFromTheEnvironment) {
  EXPECT_EQ(read_run_environment({}, fake({})).wait, WaitMode::spin);
  EXPECT_EQ(read_run_environment({}, fake({{"HETSCALE_MPI_WAIT", "sleep"}})).wait, WaitMode::sleep);
  EXPECT_EQ(read_run_environment({}, fake({{"HETSCALE_MPI_WAIT", "spin"}})).wait, WaitMode::spin);
  try {
    (void)read_run_environment({}, fake({{"HETSCALE_MPI_WAIT", "nap"}}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "HETSCALE_MPI_WAIT: expected spin or sleep, not 'nap'");
  }
}

TEST(UtcTimestamp, Iso8601WithMilliseconds) {
  const auto when = std::chrono::system_clock::time_point(std::chrono::milliseconds(1795245000123));
  EXPECT_EQ(utc_timestamp(when), "2026-11-21T07:10:00.123Z");
}

}  // namespace
}  // namespace hetscale::kernels

namespace hetscale::kernels {
namespace {

TEST(SiteSpeedUnit, FromTheSiteTable) {
  EXPECT_EQ(site_speed_unit(std::nullopt), "");
  EXPECT_EQ(site_speed_unit(std::string(HETSCALE_FIXTURES_DIR) + "/site/good-three-groups.toml"), "Mflops");
  EXPECT_THROW((void)site_speed_unit(std::string("/nonexistent/site.toml")), Error);
}

TEST(RunEnvironment, SiteFromTheEnvironment) {
  const RunEnvironment env = read_run_environment({}, fake({{"HETSCALE_SITE", "/etc/hetscale/site.toml"}}));
  EXPECT_EQ(env.site, "/etc/hetscale/site.toml");
}

}  // namespace
}  // namespace hetscale::kernels
