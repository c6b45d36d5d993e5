// hetscale predict --overhead/--overhead-of: the analytic prediction, no database.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

/// The arguments of examples/predict/sunwulf-ge.args (one a line, # comments).
std::vector<std::string> sunwulf_args() {
  std::ifstream in(std::string(HETSCALE_SOURCE_DIR) + "/examples/predict/sunwulf-ge.args");
  std::vector<std::string> args;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') args.push_back(line);
  return args;
}

// An independent computation of the paper's model (docs/science.md section 1, GE on Sunwulf),
// all in ms: W(N) = 2/3 N^3 - 1/2 N^2 - (3 + 1/6) N + 3, T = W t_c / p + T0.
double work(double n) {
  return 2.0 / 3 * n * n * n - 0.5 * n * n - (3 + 1.0 / 6) * n + 3;
}
double overhead_ms(double n, double p) {
  const double bcast = 0.12 + 0.23 * p, send = 0.08 + 0.00003 * n, barrier = 0.39 * p;
  return bcast + 2 * (p - 1) * (send + send) + n * (2 * bcast + barrier);
}
double efficiency(double n, double mflops, double p) {
  const double ms = work(n) * 3.1e-5 / p + overhead_ms(n, p);
  return work(n) / (ms * 1e-3 * mflops * 1e6);
}

TEST(PredictAnalytic, SunwulfExampleAgainstAnIndependentComputation) {
  // By hand at the base (N = 310, p = 3): W = 19,811,638; T0 = 0.81 + 2*2*(2*0.0893) +
  // 310*(1.62 + 1.17) = 0.81 + 0.7144 + 864.9 = 866.4244 ms; T = W * 3.1e-5 / 3 + T0 =
  // 204.7203 + 866.4244 = 1071.1447 ms; E_s = W / (1.0711447 s * 62.05e6) = 0.298078.
  auto args = sunwulf_args();
  ASSERT_FALSE(args.empty());
  args.insert(args.end(), {"--format", "json"});
  const auto r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["base"]["overhead_ms"].get<double>(), 866.4244, 1e-9);
  EXPECT_NEAR(j["base"]["ms"].get<double>(), 1071.144659, 1e-6);
  EXPECT_NEAR(j["base"]["speed_efficiency"].get<double>(), 0.2980784, 1e-7);
  const double base_e = efficiency(310, 62.05, 3);
  const std::vector<std::pair<double, double>> targets{
      {102.63, 5}, {183.79, 9}, {346.11, 17}, {670.75, 33}};
  ASSERT_EQ(j["rows"].size(), targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto [c, p] = targets[i];
    // E_s rises with N here: bisection between the base size and 100 times it.
    double lo = 310, hi = 31000;
    for (int k = 0; k < 200; ++k) {
      const double mid = 0.5 * (lo + hi);
      (efficiency(mid, c, p) >= base_e ? hi : lo) = mid;
    }
    const auto& row = j["rows"][i];
    EXPECT_EQ(row["marked_speed"].get<double>(), c);
    EXPECT_EQ(row["processes"].get<int>(), static_cast<int>(p));
    EXPECT_NEAR(row["predicted_parameter"].get<double>(), hi, 1e-8 * hi) << c;
    EXPECT_NEAR(row["predicted_work"].get<double>(), work(hi), 1e-7 * work(hi)) << c;
    EXPECT_NEAR(row["psi"].get<double>(), overhead_ms(310, 3) / overhead_ms(hi, p), 1e-9) << c;
    EXPECT_NEAR(row["psi_definition"].get<double>(), c * work(310) / (62.05 * work(hi)), 1e-9);
    EXPECT_NEAR(row["speed_efficiency"].get<double>(), base_e, 1e-10);
  }
  // And a figure checked by hand: on the 4-node set (p = 5) N' = 504.93, where
  // T0' = 1.27 + 2*4*2*0.09515 + 504.93*(2*1.27 + 1.95) = 1.27 + 1.5224 + 2267.14 = 2269.9 ms,
  // so psi' = 866.42 / 2269.9 = 0.3817.
  EXPECT_NEAR(j["rows"][0]["predicted_parameter"].get<double>(), 504.93, 0.01);
  EXPECT_NEAR(j["rows"][0]["psi"].get<double>(), 0.3817, 1e-4);
}

TEST(PredictAnalytic, TableAndCsv) {
  auto args = sunwulf_args();
  auto r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("base: C = 62.05 Mflops, p = 3, N = 310: W = 1.98116e+07, T = 1071.14 "
                       "ms, T0 = 866.424 ms, E_s = 0.298078\n"),
            std::string::npos)
      << r.out;
  args.insert(args.end(), {"--format", "csv"});
  r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string header =
      "marked_speed,processes,predicted_parameter,predicted_work,predicted_ms,overhead_ms,"
      "speed_efficiency,psi,psi_definition\n";
  ASSERT_EQ(r.out.substr(0, header.size()), header);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5);
  EXPECT_EQ(r.out.substr(header.size(), 12), "102.63,5,504");
}

Result analytic(std::vector<std::string> extra) {
  std::vector<std::string> args{"predict",     "--workload", "2*N^3",  "--overhead", "1 + N*p",
                                "--unit-time", "1e-5",       "--base", "100:2:1000"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

TEST(PredictAnalytic, UnreachableTargetIsNamed) {
  // T0 = 0.01 N^3 p ms grows like W: on 1000 Mflops with 4 processes E_s stays below the
  // base's.
  const auto r = run_cli({"predict", "--workload", "2*N^3", "--overhead", "1 + 0.01*N^3*p",
                          "--unit-time", "1e-5", "--base", "100:2:1000", "--to", "1000:4"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("hetscale predict: target 1000:4: no N' in [1, 1e+09] reaches the base "
                        "E_s = ",
                        0),
            0u)
      << r.err;
}

TEST(PredictAnalytic, UsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--to", "200"}, "--to '200': expected C:p (marked speed, processes)"},
      {{"--to", "200:2.5"},
       "--to '200:2.5': the number of processes '2.5' must be a whole number >= 1"},
      {{"--to", "-1:4"}, "--to '-1:4': the marked speed '-1' must be positive"},
      {{}, "the analytic prediction needs at least one --to C:p"},
      {{"--to", "200:4", "--db", "x"},
       "--overhead/--overhead-of predict without a database: leave --db and --experiment out"},
      {{"--to", "200:4", "--overhead-unit", "sec"},
       "--overhead-unit: unknown time unit 'sec' (known: s, ms, us, ns, min, h)"},
      {{"--to", "200:4", "--unit", "Mflop"}, "--unit: unknown speed unit 'Mflop'"},
  };
  for (const auto& [extra, message] : cases) {
    const auto r = analytic(extra);
    EXPECT_EQ(r.code, 2) << message;
    EXPECT_EQ(r.err.rfind("hetscale predict: " + message, 0), 0u) << r.err;
  }
  auto r = analytic({"--to", "200:4", "--target", "0.3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("hetscale predict: --target, --what-if, --site and --fit-sets are for", 0),
            0u)
      << r.err;
  r = run_cli({"predict", "--db", "postgresql://unused", "--experiment", "e", "--to", "200:4"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("hetscale predict: --base, --to, --workload, --unit-time", 0), 0u) << r.err;
  r = run_cli({"predict", "--experiment", "e"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale predict: give --db (or HETSCALE_DB, or the config file's database) and --experiment "
            "(prediction from collected runs), or "
            "--overhead / --overhead-of (the analytic prediction) (see --help)\n");
}

TEST(PredictAnalytic, OverheadOfAKernelFromCommbenchOrNetwork) {
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-predict-analytic";
  std::filesystem::create_directories(dir);
  // The Sunwulf figures as hetscale-commbench would print them (seconds, per byte), a file
  // without an all-reduce line or a network probe.
  std::ofstream(dir / "commbench.json") << R"({"models": {
      "send": {"intercept": 0.00008, "slope": 3.75e-9, "r2": 1},
      "bcast": {"intercept": 0.00012, "slope": 0.00023, "r2": 1},
      "barrier": {"intercept": 0, "slope": 0.00039, "r2": 1}}})";
  auto r = run_cli({"predict", "--overhead-of", "ge", "--commbench",
                    (dir / "commbench.json").string(), "--print-overhead"});
  ASSERT_EQ(r.code, 0) << r.err;
  // ge's messages (kernel_communication.hpp): its rows out and back, a pivot search, a
  // pivot row and (on other ranks than its owner's) a row exchange per column; the
  // all-reduce at the barrier's line.
  EXPECT_EQ(r.out,
            "(p - 1)*(0.08 + 3.75e-06*((8*N*(N + 1))/p)) + (N)*((0.39*p) + lg(p)*3.75e-06*(12)) + "
            "(N)*((0.12 + 0.23*p) + lg(p)*3.75e-06*((8*(N + 1)) + (16))/2) + "
            "(N*(p - 1)/p)*(0.08 + 3.75e-06*(((8*(N + 1)) + (16))/2)) + "
            "(p - 1)*(0.08 + 3.75e-06*((8*N*(N + 1))/p))\n");
  r = run_cli({"predict", "--overhead-of", "ge", "--commbench", (dir / "commbench.json").string(),
               "--unit-time", "3.1e-5", "--base", "62.05:3:310", "--to", "102.63:5", "--format",
               "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["workload"], "ge");
  // T0 of the base by hand, N = 310 on 3, in ms: rows 2 * 2 * (0.08 + 3.75e-6 * 8 * 310 *
  // 311 / 3); pivot searches 310 * (1.17 + lg 3 * 3.75e-6 * 12); pivot rows of 2488 .. 16
  // bytes, 1252 on average, 310 * (0.81 + lg 3 * 3.75e-6 * 1252); 310 * 2 / 3 exchanges of
  // 1252 bytes.
  const double lg3 = std::log2(3.0);
  const double base_t0 = 4 * (0.08 + 3.75e-6 * 8 * 310 * 311 / 3) + 310 * (1.17 + lg3 * 3.75e-6 * 12) +
                         310 * (0.81 + lg3 * 3.75e-6 * 1252) + 310.0 * 2 / 3 * (0.08 + 3.75e-6 * 1252);
  EXPECT_NEAR(j["base"]["overhead_ms"].get<double>(), base_t0, 1e-9 * base_t0);
  EXPECT_EQ(j["overhead_source"], "hetscale-commbench models of " + (dir / "commbench.json").string());

  std::ofstream(dir / "site.toml")
      << "[site]\nname = \"s\"\n[[group]]\nname = \"g\"\n"
         "marked_speed = 100\n[[node]]\nname = \"n1\"\ngroup = \"g\"\n"
         "[network]\ntopology = \"star\"\nlatency_us = 50\nbandwidth_MBps = 125\n";
  r = run_cli({"predict", "--overhead-of", "mm", "--network", (dir / "site.toml").string(),
               "--print-overhead"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "(p - 1)*(0.1 + 8e-06*((8*N^2)/p)) + ((0.1*lg(p)) + lg(p)*8e-06*(8*N^2)) + "
            "(p - 1)*(0.1 + 8e-06*((8*N^2)/p))\n");
  r = run_cli({"predict", "--overhead-of", "mm", "--print-overhead"});
  EXPECT_EQ(r.code, 2);
  std::filesystem::remove_all(dir);
}

TEST(PredictAnalytic, OverheadOfAKernelOnANetworkProbe) {
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-predict-analytic-probe";
  std::filesystem::create_directories(dir);
  // A probe with one point-to-point line, 10 us + 1 GB/s, no saturation and no collective
  // measured: every pattern costs its algorithm on that line.
  std::ofstream(dir / "probe.json") << R"({"models": {
      "send": {"intercept": 1e-5, "slope": 1e-9}, "bcast": {"intercept": 0, "slope": 0},
      "barrier": {"intercept": 0, "slope": 0}},
    "probe_version": 1, "engine": "mpirun", "hosts": ["a", "b"],
    "point_to_point": {"remote": {"ranks": [0, 1], "hosts": ["a", "b"],
      "samples": [{"bytes": 1, "seconds": 1.0000001e-5, "repetitions": 1}],
      "segments": [{"first_bytes": 1, "last_bytes": 1e9, "latency_seconds": 1e-5, "seconds_per_byte": 1e-9}],
      "relative_rms": 0, "bic": 0}, "local": null, "local_absent": "every rank is on its own node"},
    "saturation": null, "saturation_absent": "two nodes", "collectives": []})";
  const std::string file = (dir / "probe.json").string();
  auto r = run_cli({"predict", "--overhead-of", "mm", "--commbench", file, "--print-overhead"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("T0(N, p) of mm on the network probe of " + file + " (2 ranks on 2 nodes)", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  broadcast  1 call(s) of 8*N^2 bytes: B from rank 0\n"), std::string::npos) << r.out;
  r = run_cli({"predict", "--overhead-of", "mm", "--commbench", file, "--unit-time", "1e-6", "--base", "1000:2:100",
               "--to", "2000:4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // mm at N = 100 on 2: A out (1 message of 40000 bytes), B (a tree of 1 round of 80000),
  // C back (40000): 3 * 10 us + 160000 ns, in ms.
  EXPECT_NEAR(j["base"]["overhead_ms"].get<double>(), 1e3 * (3e-5 + 160000e-9), 1e-12);
  EXPECT_EQ(j["overhead_unit"], "s");
  EXPECT_EQ(j["overhead_source"], "hetscale-commbench network probe of " + file);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::cli::testing
