// sbatch --hetscale-weights=marked: the request reaches the steps the batch script starts.
#include <gtest/gtest.h>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

TEST(PluginBatch, SbatchRequestReachesTheInnerSrun) {
  const Testbed tb = Testbed::from_env();
  const std::filesystem::path dir = fresh_dir("batch");
  const std::filesystem::path out = dir / "out";
  const std::string inner = "srun -l sh -c \"env | grep -E '^(HETSCALE_|SLURMD_NODENAME=)' || true\"";
  const auto r = run_command({"sbatch", "--parsable", "-w", "n1,n4", "-N2", "-n2", "--hetscale-weights=marked",
                              "--chdir=" + dir.string(), "--output=" + out.string(), "--wrap", inner},
                             30s, {"SLURM_CONF=" + tb.slurm_conf.string()});
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string job = split_lines(r.out).at(0);
  const std::string done = wait_for_job(tb, job, 60s);
  ASSERT_FALSE(done.empty()) << "job " << job << " did not complete";
  EXPECT_NE(done.find(" JobState=COMPLETED "), std::string::npos) << done;

  const StepEnv step = parse_labelled_env(read_text(out));
  ASSERT_EQ(step.size(), 2U) << read_text(out);
  double sum = 0;
  for (const auto& [rank, task] : step) {
    SCOPED_TRACE(task.node());
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "marked");
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS"), "marked") << "the request, handed on by the batch step";
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), task.node() == "n1" ? 2.0 / 3 : 1.0 / 3, 1e-12);
    sum += task.number("HETSCALE_WEIGHT");
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

}  // namespace
}  // namespace hetscale::test
