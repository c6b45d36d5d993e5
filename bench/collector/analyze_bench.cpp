// `hetscale analyze` on a study of 100,000 runs (target: under 2 s), cold and warm
// (docs/collector.md, "Performance"). bench/collector/analyze_bench.sh runs it:
//   bench_analyze URI load [RUNS]     generate the study's plan and run records, collect them
//   bench_analyze URI analyze [ROUNDS] time `analyze` ROUNDS times (the first one on a
//                                      freshly started server is the cold one)
// The study: the two machine sets of tests/fixtures/plans/mm-small.json, 50 sizes each, and
// as many repetitions as make RUNS runs; E_s(N) = N / (N + 20 p) on p nodes, 2 ranks a run.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "collector/record_text.hpp"
#include "commands.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kExperiment = "analyze-bench";
constexpr int kSizes = 50;

int hetscale(std::vector<std::string> args) {
  args.insert(args.begin(), "hetscale");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  const int code = hetscale::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  if (code != 0) throw std::runtime_error(args[1] + " failed: " + err.str() + out.str());
  return code;
}

std::vector<double> sizes(int set) {
  std::vector<double> out;
  for (int i = 0; i < kSizes; ++i) out.push_back((set + 1) * 100.0 * std::pow(1.05, i));
  return out;
}

void load(const std::string& uri, long runs, const fs::path& scratch) {
  fs::create_directories(scratch);
  hetscale({"db", "migrate", "--db", uri});
  std::ifstream in(fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json");
  nlohmann::json plan = nlohmann::json::parse(in);
  plan["experiment"]["name"] = kExperiment;
  plan["experiment"]["target_efficiency"] = 0.5;
  for (auto& set : plan["machine_sets"]) set["parameter_values"] = sizes(set["index"].get<int>());
  std::ofstream(scratch / "plan.json") << plan.dump();

  const long repetitions = std::max<long>(1, runs / (2 * kSizes));
  std::ofstream records(scratch / "runs.jsonl", std::ios::trunc);
  int serial = 0;
  for (int set = 0; set < 2; ++set) {
    const int nodes = 2 << set;
    const double speed = 100.0 * (set + 1);
    for (double n : sizes(set)) {
      for (long rep = 0; rep < repetitions; ++rep) {
        const double work = 2 * n * n * n;
        const double efficiency = n / (n + 20.0 * nodes) * (1 + 0.01 * ((rep % 7) - 3));
        const double seconds = work / (efficiency * speed * 1e6);
        records << hetscale::test::record_json(kExperiment, n, set, static_cast<int>(rep), work,
                                               seconds, speed, 2, serial++)
                       .dump()
                << '\n';
      }
    }
  }
  records.close();
  const auto start = Clock::now();
  hetscale({"collect", "--db", uri, (scratch / "plan.json").string(),
            (scratch / "runs.jsonl").string()});
  std::printf("loaded %d runs in %.1f s\n", serial,
              std::chrono::duration<double>(Clock::now() - start).count());
}

void analyze(const std::string& uri, int rounds) {
  std::printf("%-8s %10s\n", "round", "seconds");
  for (int round = 0; round < rounds; ++round) {
    const auto start = Clock::now();
    hetscale({"analyze", "--db", uri, "--experiment", kExperiment, "--target", "0.5"});
    std::printf("%-8s %10.3f\n", round == 0 ? "cold" : "warm",
                std::chrono::duration<double>(Clock::now() - start).count());
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 3) throw std::runtime_error("usage: bench_analyze URI load [RUNS] | analyze [ROUNDS]");
    const std::string uri = argv[1];
    const std::string verb = argv[2];
    if (verb == "load") {
      load(uri, argc > 3 ? std::stol(argv[3]) : 100000,
           fs::temp_directory_path() / "hetscale-analyze-bench");
    } else if (verb == "analyze") {
      analyze(uri, argc > 3 ? std::stoi(argv[3]) : 4);
    } else {
      throw std::runtime_error("unknown verb " + verb + " (load, analyze)");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_analyze: %s\n", e.what());
    return 1;
  }
}
