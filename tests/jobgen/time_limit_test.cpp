#include "hetscale/jobgen/time_limit.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::jobgen {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

std::string site_text(const std::string& unit) {
  return "[site]\nname = \"t\"\nspeed_unit = \"" + unit +
         "\"\nbenchmark = \"dgemm\"\n\n[[group]]\nname = \"a\"\nmarked_speed = 100.0\n\n"
         "[[node]]\nname = \"a[1-2]\"\ngroup = \"a\"\n";
}

// One set of 2 nodes of 100 Mflops (C = 200 Mflops); W = 2 N^3; 3 repetitions.
Round one_set(const std::string& slurm = "", const std::string& unit = "Mflops") {
  const std::string spec =
      "[experiment]\nname = \"t\"\ntarget_efficiency = 0.5\nrepetitions = 3\n\n[code]\nkernel = \"mm\"\n\n"
      "[parameter]\nvalues = [100, 2000]\n\n[machine_sets]\nstart = 2\nmax = 2\n" + slurm;
  return plan_round(parse_experiment_spec(spec, "spec.toml"), parse_site_table(site_text(unit), "site.toml"), study_token);
}

TEST(TimeLimit, EstimatedFromTheWorkOfTheLargestSize) {
  const Round round = one_set();
  ASSERT_EQ(round.sets.size(), 1U);
  ASSERT_EQ(round.sets[0].set.marked_speed, 200);
  // W(2000) = 1.6e10; T = 1.6e10 / (200e6 x 0.5) = 160 s; x 3 x 2 + 60 = 1020 s = 17 min.
  const SetTimeLimit& limit = round.sets[0].time_limit;
  EXPECT_EQ(limit.slurm_time, "00:17:00");
  EXPECT_EQ(limit.seconds, 1020U);
  EXPECT_EQ(limit.basis,
            "estimated from N=2000: T = W / (C E_target) = 1.6e+10 / (200 Mflops x 0.5) = 160 s; x 3 repetitions x "
            "safety 2 + 60 s start-up = 1020 s, rounded up to whole minutes");
}

TEST(TimeLimit, CountsOneRunPerWeightsOfEachRepetition) {
  const Round round = one_set("\n[slurm]\nweights = [\"marked\", \"equalized\"]\n");
  // T = 160 s as above; x 3 repetitions x 2 weights x 2 + 60 = 1980 s = 33 min.
  const SetTimeLimit& limit = round.sets[0].time_limit;
  EXPECT_EQ(limit.slurm_time, "00:33:00");
  EXPECT_EQ(limit.seconds, 1980U);
  EXPECT_TRUE(limit.basis.ends_with("; x 3 repetitions x 2 weights x safety 2 + 60 s start-up = 1980 s, rounded up "
                                    "to whole minutes"))
      << limit.basis;
}

TEST(TimeLimit, ShortEstimatesGetTheFloor) {
  Round round = one_set();
  round.sets[0].parameter_values = {100, 1000};
  // W(1000) = 2e9; T = 20 s; x 3 x 2 + 60 = 180 s = 3 min, below the floor of 5 min.
  const SetTimeLimit limit = estimated_time_limit(round, round.sets[0]);
  EXPECT_EQ(limit.slurm_time, "00:05:00");
  EXPECT_TRUE(limit.basis.ends_with("= 180 s, raised to the floor of 5 min")) << limit.basis;
}

TEST(TimeLimit, AFixedLimitIsTheSpecsForEverySet) {
  Round round = one_set("\n[slurm]\ntime_limit = \"1-00:00:00\"\n");
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "1-00:00:00");
  EXPECT_EQ(round.sets[0].time_limit.basis, "fixed by [slurm] time_limit");
  cap_time_limits(round, 600, "short");  // the spec's limit is left to Slurm
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "1-00:00:00");
  apply_measured_time_limits(round, {{0, 2000, 1.6e10, 5000, {}, {}, "r:1"}});
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "1-00:00:00");
}

TEST(TimeLimit, CappedAtThePartitionsMaxTime) {
  Round round = one_set();
  cap_time_limits(round, 600, "short");
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "00:10:00");
  EXPECT_EQ(round.sets[0].time_limit.seconds, 600U);
  EXPECT_TRUE(round.sets[0].time_limit.basis.ends_with("; 00:17:00 capped at MaxTime 00:10:00 of partition 'short'"))
      << round.sets[0].time_limit.basis;
  cap_time_limits(round, 3600, "long");  // already below
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "00:10:00");
}

TEST(TimeLimit, ARoundScalesTheMeasuredRunNearestInWork) {
  Round round = one_set();
  const std::vector<MeasuredRun> runs{
      {0, 1000, 2e9, 30, {}, {}, "r:1"},      // W ratio 8
      {0, 1500, 6.75e9, 80, {}, {}, "r:2"},   // W ratio 2.37: nearest; the longer of the two
      {0, 1500, 6.75e9, 85, {}, {}, "r:3"},
      {1, 2000, 1.6e10, 1, {}, {}, "r:4"},    // another set
  };
  // 85 s x 1.6e10 / 6.75e9 = 201.48 s; x 3 x 2 + 60 = 1268.9 s -> 22 min.
  const auto limit = measured_time_limit(round, round.sets[0], runs);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->slurm_time, "00:22:00");
  EXPECT_EQ(limit->basis,
            "measured 85 s at N=1500 (the run nearest in work), x W(2000) / W(1500) = 2.37 -> 201.5 s; x 3 "
            "repetitions x safety 2 + 60 s start-up = 1269 s, rounded up to whole minutes");
  EXPECT_FALSE(measured_time_limit(round, round.sets[0], {runs[3]}).has_value());
  apply_measured_time_limits(round, runs);
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "00:22:00");
  apply_measured_time_limits(round, {});  // no runs: the estimate from the work
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "00:17:00");
}

TEST(TimeLimit, ASpeedUnitWithoutSecondsFallsBackToTheDefault) {
  const Round round = one_set("", "speed-factor");
  EXPECT_EQ(round.sets[0].time_limit.slurm_time, "00:30:00");
  EXPECT_EQ(round.sets[0].time_limit.basis, "the speed unit 'speed-factor' gives no seconds: the default 00:30:00");
}

TEST(TimeLimit, AnEstimateBeyondTheRangeIsAnErrorNotAnOverflow) {
  // uint64_t(ceil(inf)) was undefined behaviour.
  Round round = one_set();
  for (double speed : {1e-300, 1e-320}) {
    round.sets[0].set.marked_speed = speed;
    try {
      (void)estimated_time_limit(round, round.sets[0]);
      ADD_FAILURE() << "no error at speed " << speed;
    } catch (const Error& e) {
      EXPECT_TRUE(std::string(e.what()).ends_with(
          "is more than the 1e+09 s allowed: give [slurm] time_limit or a smaller [parameter] range"))
          << e.what();
    }
  }
}

TEST(TimeLimit, ASetWithoutMarkedSpeedFallsBackToTheDefault) {
  Round round = one_set();
  round.sets[0].set.marked_speed = 0;
  const SetTimeLimit limit = estimated_time_limit(round, round.sets[0]);
  EXPECT_EQ(limit.seconds, time_limit_rule.fallback_seconds);
  EXPECT_EQ(limit.basis, "machine set 0 has no marked speed: the default " +
                             slurm::format_slurm_time(time_limit_rule.fallback_seconds));
}

}  // namespace
}  // namespace hetscale::jobgen
