// The synthetic experiment of the predict tests: runs generated from a known time model
// T = W/(C eta) + c0 [p>1] + c1 N^2 ceil(log2 p), W = 2 N^3, on sets of 2, 4 and 8 nodes
// of 100 Mflops, the parameter that closed form gives at the target, and a database that
// holds the experiment.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_database.hpp"
#include "test_runs.hpp"

namespace hetscale::test {

constexpr double kEta = 0.8;        // compute efficiency
constexpr double kLatency = 0.01;   // c0, seconds
constexpr double kVolume = 2e-8;    // c1, seconds per N^2 per tree level
constexpr double kNodeSpeed = 100;  // Mflops per node
constexpr double kTarget = 0.5;

inline double tree_levels(double p) {
  return std::ceil(std::log2(p));
}

inline double overhead(double n, double p) {
  return kLatency + kVolume * n * n * tree_levels(p);
}

// The parameter reaching kTarget on C (ops/s) and p processes, from E_s = W / (T C):
// 2 N^3 (1/E - 1/eta) = C T0(N, p), solved by bisection (the left side minus the right
// grows with N over the range searched).
inline double closed_form_parameter(double c, double p) {
  double low = 1;
  double high = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double n = 0.5 * (low + high);
    const double gap = 2 * n * n * n * (1 / kTarget - 1 / kEta) - c * overhead(n, p);
    (gap < 0 ? low : high) = n;
  }
  return 0.5 * (low + high);
}

/// Experiment "synthetic": sizes 25 to 1600 (doubling) on each of the 3 sets.
inline std::vector<nlohmann::json> experiment_records() {
  std::vector<nlohmann::json> records;
  int serial = 0;
  for (int set = 0; set < 3; ++set) {
    const int nodes = 2 << set;
    const double c = kNodeSpeed * nodes;  // Mflops
    for (double n = 25; n <= 1600; n *= 2) {
      const double compute = 2 * n * n * n / (c * 1e6 * kEta);
      std::vector<RankSpec> ranks;
      for (int r = 0; r < nodes; ++r)
        ranks.push_back({"n" + std::to_string(r + 1), 1.0 / nodes, compute, overhead(n, nodes)});
      records.push_back(run_record("synthetic", n, set, 0, c, ranks, serial++));
    }
  }
  return records;
}

/// A migrated database holding the synthetic experiment, analyzed at kTarget.
class SyntheticExperiment : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    auto r = collect(db_.uri(), dir_.path() / "runs.jsonl", experiment_records());
    ASSERT_EQ(r.code, 0) << r.err;
    r = cli::testing::run_cli(
        {"analyze", "--db", db_.uri(), "--experiment", "synthetic", "--target", "0.5"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  TestDatabase db_;
  TempDir dir_{"predict"};
};

}  // namespace hetscale::test
