#include "common/kernel_options.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale::kernels {
namespace {

KernelOptions parse(std::vector<std::string_view> args) { return parse_kernel_options(args); }

std::string error_of(std::vector<std::string_view> args) {
  try {
    (void)parse(args);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(KernelOptions, AllOptions) {
  const KernelOptions o = parse({"-N", "1200", "--seed", "7", "--record", "r.jsonl", "--weights", "1,2",
                                 "--experiment", "exp"});
  EXPECT_EQ(o.n, 1200u);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.record, "r.jsonl");
  EXPECT_EQ(o.weights, "1,2");
  EXPECT_EQ(o.experiment, "exp");
  EXPECT_FALSE(o.help);
}

TEST(KernelOptions, DefaultsAndEqualsForm) {
  const KernelOptions o = parse({"--seed=3", "-N", "5"});
  EXPECT_EQ(o.n, 5u);
  EXPECT_EQ(o.seed, 3u);
  EXPECT_FALSE(o.record);
  EXPECT_FALSE(o.weights);
  EXPECT_FALSE(o.experiment);
}

TEST(KernelOptions, HelpNeedsNoSize) { EXPECT_TRUE(parse({"--help"}).help); }

TEST(KernelOptions, Errors) {
  EXPECT_EQ(error_of({}), "missing -N <n>, the problem size");
  EXPECT_EQ(error_of({"-N"}), "-N needs a value");
  EXPECT_EQ(error_of({"-N", "abc"}), "-N: 'abc' is not a non-negative integer");
  EXPECT_EQ(error_of({"-N", "-5"}), "-N: '-5' is not a non-negative integer");
  EXPECT_EQ(error_of({"-N", "0"}), "-N: the problem size must be at least 1");
  EXPECT_EQ(error_of({"-N", "4", "--frobnicate"}), "unknown argument '--frobnicate' (see --help)");
  EXPECT_EQ(error_of({"-N", "4", "--record", ""}), "--record: empty file name");
  EXPECT_EQ(error_of({"-N", "4", "--seed", "1.5"}), "--seed: '1.5' is not a non-negative integer");
}

TEST(KernelOptions, FftPlanningAndWisdom) {
  EXPECT_EQ(parse({"-N", "4"}).fft_planning, FftPlanning::measure);
  EXPECT_FALSE(parse({"-N", "4"}).fft_wisdom);
  const KernelOptions o = parse({"-N", "4", "--fft-planning", "estimate", "--fft-wisdom=/tmp/w"});
  EXPECT_EQ(o.fft_planning, FftPlanning::estimate);
  EXPECT_EQ(o.fft_wisdom, "/tmp/w");
  EXPECT_EQ(error_of({"-N", "4", "--fft-planning", "patient"}),
            "--fft-planning: 'patient' is not an FFT planning (estimate or measure)");
  EXPECT_EQ(error_of({"-N", "4", "--fft-wisdom", ""}), "--fft-wisdom: empty file name");
}

TEST(KernelOptions, MessageLimitsForTests) {
  const KernelOptions defaults = parse({"-N", "4"});
  EXPECT_EQ(defaults.message_limits.piece_bytes, SIZE_MAX);  // the count limit alone
  EXPECT_EQ(defaults.message_limits.max_count, static_cast<std::size_t>(INT_MAX));
  const KernelOptions o = parse({"-N", "4", "--message-piece-bytes", "64", "--mpi-count-limit=100"});
  EXPECT_EQ(o.message_limits.piece_bytes, 64u);
  EXPECT_EQ(o.message_limits.max_count, 100u);
  EXPECT_EQ(error_of({"-N", "4", "--message-piece-bytes", "0"}), "--message-piece-bytes: must be at least 1");
  EXPECT_EQ(parse({"-N", "4", "--message-piece-bytes", "17179869184"}).message_limits.piece_bytes,
            std::size_t{1} << 34);
  EXPECT_EQ(error_of({"-N", "4", "--mpi-count-limit", "2147483648"}), "--mpi-count-limit: must be in [1, 2147483647]");
  EXPECT_EQ(defaults.message_limits.synchronous_bytes, static_cast<std::size_t>(INT_MAX));
  EXPECT_EQ(parse({"-N", "4", "--synchronous-send-bytes", "0"}).message_limits.synchronous_bytes, 0u);
  EXPECT_EQ(error_of({"-N", "4", "--synchronous-send-bytes", "2147483648"}),
            "--synchronous-send-bytes: must be in [0, 2147483647]");
}

TEST(KernelOptions, ComputeModeDependsOnTheBuild) {
  const std::vector<std::string_view> size{"-N", "8"};
  EXPECT_EQ(parse_kernel_options(size, false).compute, ComputeMode::real);
  EXPECT_EQ(parse_kernel_options(size, true).compute, ComputeMode::flops);  // the twin's default
  const std::vector<std::string_view> real{"-N", "8", "--compute", "real"};
  EXPECT_EQ(parse_kernel_options(real, true).compute, ComputeMode::real);
  EXPECT_EQ(parse_kernel_options(real, false).compute, ComputeMode::real);
  const std::vector<std::string_view> flops{"-N", "8", "--compute=flops"};
  EXPECT_EQ(parse_kernel_options(flops, true).compute, ComputeMode::flops);
  EXPECT_EQ(error_of({"-N", "8", "--compute", "flops"}),
            "--compute flops: only the SimGrid build (hetscale-twin-*) charges operations; this "
            "build computes");
  EXPECT_EQ(error_of({"-N", "8", "--compute", "fast"}),
            "--compute: expected real or flops, not 'fast'");
}

TEST(KernelOptions, WeightsFileSiteAndPlatformHash) {
  const std::vector<std::string_view> args{"-N",     "8",      "--weights-file",  "p.toml",
                                           "--site", "s.toml", "--platform-hash", "00aF19"};
  const KernelOptions o = parse_kernel_options(args, true);
  EXPECT_EQ(o.weights_file, "p.toml");
  EXPECT_EQ(o.site, "s.toml");
  EXPECT_EQ(o.platform_hash, "00aF19");
  EXPECT_EQ(error_of({"-N", "8", "--platform-hash", "00"}),
            "--platform-hash: only the SimGrid build (hetscale-twin-*) runs on a platform");
  const std::vector<std::string_view> bad{"-N", "8", "--platform-hash", "sha256:00"};
  EXPECT_THROW((void)parse_kernel_options(bad, true), Error);
  EXPECT_EQ(error_of({"-N", "8", "--weights", "equal", "--weights-file", "p.toml"}),
            "give --weights or --weights-file, not both");
  EXPECT_EQ(error_of({"-N", "8", "--weights-file", ""}), "--weights-file: empty file name");
}

TEST(KernelOptions, StartAtOnlyOnTheSimulatedClock) {
  EXPECT_EQ(parse_kernel_options(std::vector<std::string_view>{"-N", "8"}, true).start_at, 0);
  EXPECT_EQ(parse_kernel_options(std::vector<std::string_view>{"-N", "8", "--start-at", "1234.5"}, true).start_at,
            1234.5);
  EXPECT_EQ(error_of({"-N", "8", "--start-at", "5"}),
            "--start-at: only the SimGrid build (hetscale-twin-*) has a simulated clock");
  for (std::string_view bad : {"-1", "nan", "2e7", "", "3s"}) {
    const std::vector<std::string_view> args{"-N", "8", "--start-at", bad};
    try {
      (void)parse_kernel_options(args, true);
      ADD_FAILURE() << "accepted --start-at '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "--start-at: '" + std::string(bad) + "' is not a number of seconds in [0, 1e7]");
    }
  }
}

TEST(KernelOptions, UsageNamesTheProgram) {
  EXPECT_NE(kernel_usage("hetscale-ge").find("usage: hetscale-ge -N <n>"), std::string::npos);
  EXPECT_EQ(kernel_usage("hetscale-ge", false).find("flops"), std::string::npos);
  EXPECT_NE(kernel_usage("hetscale-twin-ge", true).find("--compute M        flops (default)"),
            std::string::npos);
}

}  // namespace
}  // namespace hetscale::kernels
