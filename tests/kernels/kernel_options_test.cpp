#include "common/kernel_options.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "hetscale/error.hpp"

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

TEST(KernelOptions, UsageNamesTheProgram) {
  EXPECT_NE(kernel_usage("hetscale-ge").find("usage: hetscale-ge -N <n>"), std::string::npos);
}

}  // namespace
}  // namespace hetscale::kernels
