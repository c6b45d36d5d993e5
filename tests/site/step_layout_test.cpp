#include "hetscale/site/step_layout.hpp"

#include <gtest/gtest.h>

#include <random>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

using Counts = std::vector<std::uint32_t>;

TEST(TasksPerNode, ExpandsRepeatsAndSingles) {
  EXPECT_EQ(parse_tasks_per_node("2(x3),1"), (Counts{2, 2, 2, 1}));
  EXPECT_EQ(parse_tasks_per_node("4"), (Counts{4}));
  EXPECT_EQ(parse_tasks_per_node("1,3(x2),2"), (Counts{1, 3, 3, 2}));
}

TEST(TasksPerNode, RejectsMalformedParts) {
  auto message = [](std::string_view text) {
    try {
      parse_tasks_per_node(text);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(""), "bad tasks per node '': '' is not a count");
  EXPECT_EQ(message("2,,1"), "bad tasks per node '2,,1': '' is not a count");
  EXPECT_EQ(message("2(3)"), "bad tasks per node '2(3)': '2(3)' is not N or N(xR)");
  EXPECT_EQ(message("2(x0)"), "bad tasks per node '2(x0)': repeat count out of range");
  EXPECT_EQ(message("a"), "bad tasks per node 'a': 'a' is not a count");
  EXPECT_EQ(message("-1"), "bad tasks per node '-1': '-1' is not a count");
  EXPECT_EQ(message("2(x99999999)"),
            "bad tasks per node '2(x99999999)': more than 1048576 nodes");
  EXPECT_THROW(parse_tasks_per_node("1,1,1", 2), Error);
  EXPECT_EQ(parse_tasks_per_node("1(x2)", 2).size(), 2u);
}

TEST(StepLayout, PairsHostsWithCounts) {
  std::vector<std::string> hosts{"n1", "n2", "n3"};
  Counts counts{2, 1, 3};
  StepLayout layout = make_step_layout(hosts, counts, 2);
  ASSERT_EQ(layout.nodes.size(), 3u);
  EXPECT_EQ(layout.nodes[2].host, "n3");
  EXPECT_EQ(layout.nodes[2].tasks, 3u);
  EXPECT_EQ(layout.nodes[0].cpus_per_task, 2u);
  EXPECT_EQ(layout.total_tasks(), 6u);
}

TEST(StepLayout, RejectsMismatchedCounts) {
  std::vector<std::string> hosts{"n1", "n2"};
  Counts one{2};
  EXPECT_THROW(
      {
        try {
          make_step_layout(hosts, one, 1);
        } catch (const Error& error) {
          EXPECT_STREQ(error.what(), "step has 2 nodes but tasks are given for 1");
          throw;
        }
      },
      Error);
  Counts zero{1, 0};
  try {
    make_step_layout(hosts, zero, 1);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "step node n2 has no task");
  }
}

}  // namespace
}  // namespace hetscale

namespace hetscale {
namespace {

// Bounded fuzzing: any text gives counts or an Error, nothing else.
TEST(TasksPerNode, FuzzedTextOnlyRaisesError) {
  const std::string alphabet = "0123456789(x),- ";
  std::mt19937 rng(11);
  int ok = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t n = rng() % 12; n > 0; --n) text += alphabet[rng() % alphabet.size()];
    try {
      parse_tasks_per_node(text);
      ++ok;
    } catch (const Error&) {
      ++rejected;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace hetscale
