#include "common/rank_weights.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"

namespace hetscale::kernels {
namespace {

std::string error_of(const std::vector<RankEnvironment>& ranks, std::optional<std::string> option = {},
                     const char* system_speed = nullptr) {
  try {
    (void)choose_weights(ranks, option, nullptr, system_speed);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CheckRequestAnswered, AStepThatAskedAndGotNoWeightsIsAnError) {
  EXPECT_NO_THROW(check_request_answered(nullptr, nullptr));       // did not ask
  EXPECT_NO_THROW(check_request_answered("off", nullptr));         // opted out
  EXPECT_NO_THROW(check_request_answered("", nullptr));
  EXPECT_NO_THROW(check_request_answered("marked", "marked"));     // the plugin answered
  EXPECT_NO_THROW(check_request_answered("./p.toml", "file"));
  try {
    check_request_answered("marked", nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "hetscale: weights: the step asked for weights (HETSCALE_WEIGHTS=marked) and got none: the hetscale "
              "SPANK plugin did not run for it (not installed on the node, or built for another Slurm release, "
              "which Slurm does not load)");
  }
  EXPECT_THROW(check_request_answered("equalized", ""), Error);
}

TEST(ReadRankEnvironment, ParsesOrFlags) {
  const RankEnvironment ok = read_rank_environment("0.25", "1500");
  EXPECT_EQ(ok.weight, 0.25);
  EXPECT_EQ(ok.marked_speed, 1500.0);
  EXPECT_FALSE(ok.weight_invalid);
  EXPECT_TRUE(read_rank_environment("x", nullptr).weight_invalid);
  EXPECT_TRUE(read_rank_environment("0", nullptr).weight_invalid);
  EXPECT_TRUE(read_rank_environment("-1", nullptr).weight_invalid);
  EXPECT_TRUE(read_rank_environment(nullptr, "fast").speed_invalid);
  EXPECT_FALSE(read_rank_environment(nullptr, nullptr).weight);
}

TEST(ChooseWeights, FromTheEnvironment) {
  const std::vector<RankEnvironment> ranks{read_rank_environment("0.66666666666666663", "1000"),
                                           read_rank_environment("0.33333333333333331", "500")};
  const RankWeights w = choose_weights(ranks, {}, "equalized", "1500");
  EXPECT_NEAR(w.weights[0], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(w.weights[1], 1.0 / 3.0, 1e-15);
  EXPECT_EQ(w.source, "equalized");
  EXPECT_EQ(w.marked_speeds, (std::vector<double>{1000, 500}));
  EXPECT_EQ(w.system_speed, 1500);
  EXPECT_TRUE(w.note.empty());
  EXPECT_EQ(choose_weights(ranks, {}, nullptr, nullptr).source, "marked");
  EXPECT_EQ(choose_weights(ranks, {}, nullptr, nullptr).system_speed, 1500);  // sum of the ranks'
}

TEST(ChooseWeights, MissingWeightFallsBackToEqualWithANote) {
  const std::vector<RankEnvironment> ranks{read_rank_environment("0.5", nullptr), read_rank_environment(nullptr, nullptr),
                                           read_rank_environment(nullptr, nullptr)};
  const RankWeights w = choose_weights(ranks, {}, nullptr, nullptr);
  EXPECT_EQ(w.weights, (std::vector<double>(3, 1.0 / 3.0)));
  EXPECT_EQ(w.source, "equal");
  EXPECT_EQ(w.note, "no HETSCALE_WEIGHT for rank(s) 1,2 and no --weights: using equal weights");
  EXPECT_EQ(w.marked_speeds, (std::vector<double>(3, 0.0)));
  EXPECT_EQ(w.system_speed, 0);
}

TEST(ChooseWeights, OptionWins) {
  const std::vector<RankEnvironment> ranks{read_rank_environment("0.9", nullptr), read_rank_environment("0.1", nullptr)};
  const RankWeights w = choose_weights(ranks, std::string("1,3"), "marked", nullptr);
  EXPECT_EQ(w.weights, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(w.source, "option");
  EXPECT_EQ(choose_weights(ranks, std::string("equal"), nullptr, nullptr).source, "equal");
}

TEST(ChooseWeights, Errors) {
  EXPECT_EQ(error_of({read_rank_environment("0.5", nullptr), read_rank_environment("0", nullptr)}),
            "HETSCALE_WEIGHT of rank 1 is not a positive number");
  EXPECT_EQ(error_of({read_rank_environment(nullptr, "-3")}), "HETSCALE_MARKED_SPEED of rank 0 is not a positive number");
  EXPECT_EQ(error_of({read_rank_environment(nullptr, nullptr)}, std::string("1,1")),
            "--weights: 2 weights given for 1 ranks; give one per rank or 'equal'");
  EXPECT_EQ(error_of({read_rank_environment(nullptr, nullptr)}, {}, "0"), "HETSCALE_SYSTEM_SPEED must be positive");
}

TEST(WithDigest, RecordsTheStepsDigestAndWarnsWhenRanksDiffer) {
  const std::string a(64, 'a'), b(64, 'b');
  RankWeights same;
  with_digest(same, std::vector<std::string>{a, a});
  EXPECT_EQ(same.digest, a);
  EXPECT_EQ(same.note, "");
  RankWeights none;
  with_digest(none, std::vector<std::string>{"", ""});
  EXPECT_FALSE(none.digest.has_value());
  // Two nodes of one step read different versions: visible in the record and on stderr.
  RankWeights mixed;
  mixed.note = "earlier note";
  with_digest(mixed, std::vector<std::string>{b, a});
  EXPECT_EQ(mixed.digest, a + "," + b);
  EXPECT_TRUE(mixed.note.starts_with("earlier note; the ranks carry different HETSCALE_WEIGHTS_DIGEST values"))
      << mixed.note;
}

TEST(NormaliseWeights, WeightsNearTheLargestDoubleDoNotOverflow) {
  // 1e308 + 1e308 is infinite: every share was 0.
  const std::vector<double> w = hetscale::normalise_weights(std::vector<double>{1e308, 1e308});
  EXPECT_DOUBLE_EQ(w[0], 0.5);
  EXPECT_DOUBLE_EQ(w[1], 0.5);
}

}  // namespace
}  // namespace hetscale::kernels
