#include "hetscale/model/analytic_prediction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "error_text.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/model/units.hpp"

namespace hetscale {
namespace {

constexpr double kMflops = 1e6;

AnalyticModel model(const std::string& workload, const std::string& overhead_ms,
                    double t_c_seconds) {
  return {Workload::parse(workload), Workload::parse(overhead_ms), 1e-3, t_c_seconds};
}

AnalyticSystem sys(double marked_speed, double processes, std::string label = {}) {
  AnalyticSystem s;
  s.marked_speed = marked_speed;
  s.processes = processes;
  s.label = std::move(label);
  return s;
}

TEST(AnalyticPrediction, Corollary2WhenSpeedPerProcessIsTheSame) {
  // alpha = 0 and C / p the same on every system: the isospeed-e condition gives
  // C W' / ... = psi = T0 / T0' exactly (Corollary 2), and the target reaches the base E_s.
  const auto m = model("2*N^3", "1 + 0.002*N^2*lg(p) + 0.5*p", 2e-8);
  const AnalyticSystem base = sys(20 * kMflops * 2, 2);
  const std::vector<AnalyticSystem> targets{sys(20 * kMflops * 4, 4), sys(20 * kMflops * 16, 16)};
  const auto r = predict_analytic(m, base, 500, targets);
  ASSERT_EQ(r.targets.size(), 2u);
  double previous = 500;
  for (const auto& t : r.targets) {
    EXPECT_NEAR(t.speed_efficiency, r.base_efficiency, 1e-10);
    EXPECT_NEAR(t.psi, t.psi_definition, 1e-9 * t.psi);
    EXPECT_NEAR(t.psi, r.base_overhead_seconds / t.overhead_seconds, 1e-15);
    EXPECT_LT(t.psi, 1.0);  // the overhead grows with p and N
    EXPECT_GT(t.parameter, previous);
    previous = t.parameter;
  }
  // The base itself as a target gives back N.
  const auto same = predict_analytic(m, base, 500, {base});
  EXPECT_NEAR(same.targets[0].parameter, 500, 1e-9 * 500);
  EXPECT_NEAR(same.targets[0].psi, 1, 1e-9);
}

TEST(AnalyticPrediction, BalancedComputeIsCorollary2ForAnySpeedPerProcess) {
  // Work in proportion to marked speed: T_c = W k / C with k = t_c C_base / p_base, so the
  // isospeed-e condition W / (W k + C T0) = W' / (W' k + C' T0') gives C T0 / W = C' T0' / W',
  // psi = T0 / T0' exactly, whatever C / p (here 10, 7.5 and 12.5 Mflops per process).
  const AnalyticModel m(Workload::parse("2*N^3"), Workload::parse("1 + 0.002*N^2*lg(p)"), 1e-3,
                        1e-7, ComputeTime::balanced);
  const AnalyticSystem base = sys(20 * kMflops, 2);
  const auto r = predict_analytic(m, base, 400, {sys(30 * kMflops, 4), sys(100 * kMflops, 8)});
  for (const auto& t : r.targets) {
    EXPECT_NEAR(t.psi, t.psi_definition, 1e-9 * t.psi);
    EXPECT_NEAR(t.speed_efficiency, r.base_efficiency, 1e-10);
  }
  // By hand: T_c on C' = 30 Mflops, p' = 4 at N = 100 (W = 2e6): 2e6 * 1e-7 * 1e7 / 3e7 =
  // 0.0667 s; the paper's per-process form gives 2e6 * 1e-7 / 4 = 0.05 s.
  EXPECT_NEAR(m.compute_seconds(100, sys(30 * kMflops, 4), base), 2e6 * 1e-7 * 1e7 / 3e7, 1e-15);
  const auto per_process = model("2*N^3", "1", 1e-7);
  EXPECT_NEAR(per_process.compute_seconds(100, sys(30 * kMflops, 4), base), 0.05, 1e-15);
}

TEST(AnalyticPrediction, ConstantOverheadGivesIdealScaling) {
  // Corollary 1: alpha = 0 and a constant overhead: psi = 1, W' = C' W / C.
  const auto m = model("N^2", "40", 1e-7);
  const AnalyticSystem base = sys(10 * kMflops, 1);
  const auto r = predict_analytic(m, base, 1000, {sys(30 * kMflops, 3), sys(80 * kMflops, 8)});
  for (const auto& t : r.targets) {
    EXPECT_EQ(t.psi, 1.0);
    EXPECT_NEAR(t.psi_definition, 1.0, 1e-9);
    EXPECT_NEAR(t.work, r.base_work * t.system.marked_speed / base.marked_speed, 1e-8 * t.work);
  }
}

TEST(AnalyticPrediction, BaseFiguresByHand) {
  // W = N^2, t_c = 1e-6 s, T0 = 2 + N*p ms. Base C = 1 Mflops, p = 1, N = 100:
  // W = 1e4, T = 1e4 * 1e-6 + (2 + 100) ms = 0.112 s, E_s = 1e4 / (0.112 * 1e6) = 0.0892857.
  const auto m = model("N^2", "2 + N*p", 1e-6);
  const auto r = predict_analytic(m, sys(1 * kMflops, 1), 100, {});
  EXPECT_DOUBLE_EQ(r.base_work, 1e4);
  EXPECT_NEAR(r.base_overhead_seconds, 0.102, 1e-15);
  EXPECT_NEAR(r.base_seconds, 0.112, 1e-15);
  EXPECT_NEAR(r.base_efficiency, 1e4 / (0.112 * 1e6), 1e-15);
  EXPECT_EQ(r.note, "");
  // t_c = 1e-9 s on one process is 1e9 op/s, a thousand times the marked 1 Mflops.
  const auto fast = predict_analytic(model("N^2", "0", 1e-9), sys(1 * kMflops, 1), 100, {});
  EXPECT_NEAR(fast.base_efficiency, 1000, 1e-9);
  EXPECT_EQ(fast.note,
            "the base E_s is 1000, above 1: t_c gives the base a compute speed W / T_c = 1e+09 "
            "operations per second, above its marked speed 1e+06; check the units of t_c and C");
}

TEST(AnalyticPrediction, OverheadGrowingTooFastNamesTheTarget) {
  // W = N^3, t_c = 1e-7 s, T0 = 1 + 1e-6 N^3 p ms: E_s rises with N towards
  // 1 / (C (t_c / p + 1e-9 p)); base C = 20 Mflops, p = 2, N = 200: W = 8e6, T = 0.4 +
  // 0.017 s, E_s = 8e6 / (0.417 * 2e7) = 0.959. On C' = 80 Mflops, p' = 8 the limit is
  // 1 / (8e7 (1.25e-8 + 8e-9)) = 0.61: no N' reaches 0.959.
  const auto m = model("N^3", "1 + 0.000001*N^3*p", 1e-7);
  const std::string what = error_of([&] {
    (void)predict_analytic(m, sys(20 * kMflops, 2), 200, {sys(80 * kMflops, 8, "80:8")});
  });
  EXPECT_NE(what.find("target 80:8: no N' in [0.2, 2e+08] reaches the base E_s = 0.959233"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("the overhead grows too fast"), std::string::npos) << what;
}

TEST(AnalyticPrediction, EfficiencyThatDoesNotRiseIsAnError) {
  // T0 = N^3 ms with W = N^2: E_s falls with N, so it is above the base E_s already at
  // the smallest N scanned on a system like the base.
  const auto m = model("N^2", "N^3", 1e-8);
  const std::string what = error_of(
      [&] { (void)predict_analytic(m, sys(10 * kMflops, 2), 100, {sys(20 * kMflops, 4)}); });
  EXPECT_NE(what.find("target 2e+07:4: E_s does not rise with N"), std::string::npos) << what;
}

TEST(AnalyticPrediction, BadModelsAndSystems) {
  EXPECT_EQ(error_of([] { (void)model("N*M", "p", 1e-8); }),
            "the workload 'N*M' must be a formula in N alone");
  EXPECT_EQ(error_of([] { (void)model("N", "q*N", 1e-8); }),
            "the overhead 'q*N' may use N and p only, not 'q'");
  EXPECT_EQ(error_of([] { (void)model("N", "p", 0); }),
            "the time per unit of work t_c must be positive and finite");
  const auto m = model("N", "p - 5", 1e-8);
  EXPECT_EQ(error_of([&] { (void)predict_analytic(m, sys(1e6, 2), 10, {}); }),
            "base: the overhead 'p - 5' gives T0 = -0.003 s at N = 10, p = 2; it must be finite "
            "and not negative");
  EXPECT_EQ(error_of([&] { (void)predict_analytic(m, sys(1e6, 0.5), 10, {}); }),
            "base 1e+06:0.5: the number of processes must be at least 1");
}

TEST(AnalyticPrediction, TimeUnits) {
  EXPECT_EQ(time_unit_seconds("ms"), 1e-3);
  EXPECT_EQ(time_unit_seconds("s"), 1.0);
  EXPECT_EQ(time_unit_seconds("us"), 1e-6);
  EXPECT_EQ(error_of([] { (void)time_unit_seconds("sec"); }),
            "unknown time unit 'sec' (known: s, ms, us, ns, min, h)");
}

TEST(AnalyticPrediction, ComputedOverheadPredictsAsItsExpression) {
  // The same T0 written as an expression in ms and computed in seconds.
  const auto written = model("2*N^3", "1 + 0.002*N^2*lg(p) + 0.5*p", 2e-8);
  const AnalyticModel computed(
      Workload::parse("2*N^3"),
      ComputedOverhead{"T0", [](double n, double p) { return 1e-3 * (1 + 0.002 * n * n * std::log2(p) + 0.5 * p); }},
      2e-8);
  EXPECT_EQ(computed.overhead_text(), "T0");
  EXPECT_EQ(written.overhead_text(), "1 + 0.002*N^2*lg(p) + 0.5*p");
  const AnalyticSystem base = sys(40 * kMflops, 2);
  const std::vector<AnalyticSystem> targets{sys(80 * kMflops, 4), sys(320 * kMflops, 16)};
  const auto a = predict_analytic(written, base, 500, targets);
  const auto b = predict_analytic(computed, base, 500, targets);
  EXPECT_NEAR(b.base_overhead_seconds, a.base_overhead_seconds, 1e-15);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    EXPECT_NEAR(b.targets[i].parameter, a.targets[i].parameter, 1e-9 * a.targets[i].parameter);
    EXPECT_NEAR(b.targets[i].psi, a.targets[i].psi, 1e-9);
  }
  EXPECT_EQ(error_of([] { (void)AnalyticModel(Workload::parse("N"), ComputedOverhead{"none", {}}, 1e-8); }),
            "a computed overhead needs its function");
}

}  // namespace
}  // namespace hetscale
