#include "hetscale/markspeed.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/model/sample_statistics.hpp"

namespace hetscale::markspeed {
namespace {

TEST(ParseBenchmark, Names) {
  EXPECT_EQ(parse_benchmark("dgemm").kind, BenchmarkKind::dgemm);
  EXPECT_EQ(parse_benchmark("dgemm").unit(), "Mflops");
  EXPECT_EQ(parse_benchmark("stream").unit(), "MB/s");
  const BenchmarkSpec ge = parse_benchmark("kernel:ge:300");
  EXPECT_EQ(ge.kind, BenchmarkKind::kernel);
  EXPECT_EQ(ge.kernel, "ge");
  EXPECT_EQ(ge.n, 300u);
  EXPECT_EQ(ge.name(), "kernel:ge:300");
  EXPECT_EQ(ge.unit(), "Mop/s");
}

TEST(ParseBenchmark, Errors) {
  EXPECT_THROW((void)parse_benchmark("linpack"), Error);
  EXPECT_THROW((void)parse_benchmark("kernel:fft:64"), Error);
  EXPECT_THROW((void)parse_benchmark("kernel:mm"), Error);
  EXPECT_THROW((void)parse_benchmark("kernel:mm:1"), Error);
  EXPECT_THROW((void)parse_benchmark("kernel:mm:12x"), Error);
}

TEST(Statistics, MedianAndCv) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(coefficient_of_variation({2, 2, 2}), 0);
  EXPECT_DOUBLE_EQ(coefficient_of_variation({1, 3}), 0.5);
}

TEST(AllowedProcessors, AreNonEmptyAndAscending) {
  const auto cpus = allowed_processors();
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
}

TEST(RunBenchmark, EveryProcessorReportsEveryRepetition) {
  Options options;
  options.size = 64;  // tiny: a correctness test, not a measurement
  for (const char* name : {"dgemm", "stream", "kernel:ge:40", "kernel:conv2d:24", "kernel:mm:32", "kernel:lu:40"}) {
    const BenchmarkResult result = run_benchmark(parse_benchmark(name), options);
    EXPECT_EQ(result.benchmark, name);
    EXPECT_EQ(result.processors.size(), allowed_processors().size());
    for (const ProcessorFigure& figure : result.processors) {
      EXPECT_EQ(figure.samples.size(), 5u) << name;
      EXPECT_GT(figure.median, 0) << name;
    }
    EXPECT_GT(result.median, 0);
    EXPECT_GE(result.cv, 0);
    EXPECT_GT(result.seconds, 0);
    EXPECT_EQ(to_json(result).at("processors").size(), result.processors.size());
  }
}

TEST(RunBenchmark, TheSustainedSpeedIsWorkOverTimeAcrossRepetitions) {
  Options options;
  options.size = 64;
  const BenchmarkResult result = run_benchmark(parse_benchmark("dgemm"), options);
  ASSERT_FALSE(result.processors.empty());
  for (const ProcessorFigure& figure : result.processors) {
    // Equal work per repetition: work / total time is the harmonic mean of the speeds.
    double inverse = 0;
    for (double speed : figure.samples) inverse += 1 / speed;
    EXPECT_NEAR(figure.sustained, static_cast<double>(figure.samples.size()) / inverse,
                1e-9 * figure.sustained);
  }
  EXPECT_TRUE(result.pinned);
  EXPECT_GT(result.sustained, 0);
}

TEST(RunBenchmark, UnpinnedWorkersShareTheProcessors) {
  Options options;
  options.size = 64;
  options.unpinned_workers = 1;
  const BenchmarkResult result = run_benchmark(parse_benchmark("dgemm"), options);
  EXPECT_FALSE(result.pinned);
  ASSERT_EQ(result.processors.size(), 1u);
  EXPECT_FALSE(result.processors[0].cpu.has_value());
  EXPECT_EQ(result.processors[0].samples.size(), 5u);
  EXPECT_GT(result.sustained, 0);
  const nlohmann::json json = to_json(result);
  EXPECT_TRUE(json.at("processors")[0].at("cpu").is_null());
  EXPECT_EQ(json.at("pinned"), false);
  // More workers than processors would time their sharing: refused.
  options.unpinned_workers = static_cast<unsigned>(allowed_processors().size()) + 1;
  EXPECT_THROW((void)run_benchmark(parse_benchmark("dgemm"), options), Error);
}

TEST(RunBenchmark, OptionErrors) {
  Options options;
  options.repetitions = 4;
  EXPECT_THROW((void)run_benchmark(parse_benchmark("dgemm"), options), Error);
  options.repetitions = 5;
  options.cpus = {100000};
  EXPECT_THROW((void)run_benchmark(parse_benchmark("dgemm"), options), Error);
}

// sample_speed checks its options as run_benchmark does, before any worker starts.
TEST(SampleSpeed, OptionErrors) {
  const BenchmarkSpec dgemm = parse_benchmark("dgemm");
  Options options;
  EXPECT_THROW((void)sample_speed(dgemm, options, 1.0, 0.0), Error);
  EXPECT_THROW((void)sample_speed(dgemm, options, 0.5, 1.0), Error);
  options.warmups = -1;
  EXPECT_THROW((void)sample_speed(dgemm, options, 1.0, 0.5), Error);
  options.warmups = 1;
  options.cpus = {100000};
  EXPECT_THROW((void)sample_speed(dgemm, options, 1.0, 0.5), Error);
  options.cpus = {};
  options.unpinned_workers = static_cast<unsigned>(allowed_processors().size()) + 1;
  EXPECT_THROW((void)sample_speed(dgemm, options, 1.0, 0.5), Error);
}

}  // namespace
}  // namespace hetscale::markspeed
