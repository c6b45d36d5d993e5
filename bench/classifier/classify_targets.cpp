// The classifier's timing targets, measured on a running local cluster over repeated
// rounds and printed with 95% confidence intervals: the half-speed ratio (0.50 +/- 0.03),
// the run-to-run CV of a node's figure (<= 2%) and the time of one classification on
// each node (<= 10 s, the whole srun line: probe, calibration and timed repetitions). bench/classifier/classify_targets.sh brings the cluster up
// and down around it:
//   bench/classifier/classify_targets.sh [--rounds R] [--seconds S] [--size N]
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetscale/markspeed.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "hetscale/site/node_record.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace {

using hetscale::Interval;
using hetscale::SampleSummary;
using hetscale::summarize_sample;
using hetscale::test::run_command;
using hetscale::test::TestbedNode;

struct Run {
  double speed = 0;
  double seconds = 0;  // wall time of the srun line
};

Run classify_on(const std::string& hetscale, const std::string& node, const std::string& seconds,
                const std::string& size) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> argv = {"srun", "-N1", "-n1", "-w", node, hetscale, "classify", "--seconds", seconds};
  if (!size.empty()) argv.insert(argv.end(), {"--size", size});
  const auto r = run_command(argv, std::chrono::seconds(300));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.ok()) throw std::runtime_error("classify on " + node + ": " + r.describe());
  const hetscale::NodeRecord record = hetscale::node_record_from_json(nlohmann::json::parse(r.out));
  return {record.marked_speed, wall};
}

void print_row(const std::string& figure, const std::string& target, const SampleSummary& s,
               bool as_cv, double scale, const Interval& target_range) {
  const Interval ci = as_cv ? s.cv_interval : s.mean_interval;
  const double value = as_cv ? s.cv : s.mean;
  std::printf("%-34s %-14s %3zu %9.4g  [%.4g, %.4g]  %s\n", figure.c_str(), target.c_str(),
              s.count, value * scale, ci.low * scale, ci.high * scale,
              hetscale::verdict(ci, target_range).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string hetscale = HETSCALE_BIN;
    int rounds = 10;
    std::string seconds = "1";
    std::string size;  // empty: the benchmark's default order, as the main job classifies
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string key = argv[i];
      if (key == "--rounds") {
        rounds = std::stoi(argv[i + 1]);
      } else if (key == "--seconds") {
        seconds = argv[i + 1];
      } else if (key == "--size") {
        size = argv[i + 1];
      } else {
        throw std::runtime_error("unknown argument " + key + " (--rounds R, --seconds S, --size N)");
      }
    }
    const hetscale::test::Testbed tb = hetscale::test::Testbed::from_env();
    // Full-speed and slower nodes in turn, so the host's drift over a round is shared.
    std::vector<TestbedNode> full, slower, order;
    for (const TestbedNode& node : tb.nodes) (node.speed == 1.0 ? full : slower).push_back(node);
    for (std::size_t i = 0; i < std::max(full.size(), slower.size()); ++i) {
      if (i < full.size()) order.push_back(full[i]);
      if (i < slower.size()) order.push_back(slower[i]);
    }
    if (full.empty()) throw std::runtime_error("the layout has no full-speed node");

    std::map<std::string, std::vector<double>> speeds, ratios;
    std::map<std::string, std::vector<double>> times;
    for (int round = 0; round < rounds; ++round) {
      std::map<std::string, double> this_round;
      for (const TestbedNode& node : order) {
        const Run run = classify_on(hetscale, node.name, seconds, size);
        this_round[node.name] = run.speed;
        speeds[node.name].push_back(run.speed);
        times[node.name].push_back(run.seconds);
      }
      std::vector<double> full_speeds;
      for (const TestbedNode& node : full) full_speeds.push_back(this_round.at(node.name));
      const double full_median = hetscale::median(full_speeds);
      for (const TestbedNode& node : slower)
        ratios[node.name].push_back(this_round.at(node.name) / full_median);
      std::fprintf(stderr, "round %d of %d done\n", round + 1, rounds);
    }

    std::printf("%d rounds of `hetscale classify --seconds %s%s` on every node, one node at a time\n",
                rounds, seconds.c_str(), size.empty() ? "" : (" --size " + size).c_str());
    std::printf("%-34s %-14s %3s %9s  %-18s  %s\n", "figure", "target", "n", "value", "95% CI",
                "verdict");
    for (const TestbedNode& node : slower) {
      const double t = node.speed;
      print_row("speed ratio " + node.name + " (factor " + std::to_string(t).substr(0, 4) + ")",
                std::to_string(t).substr(0, 4) + " +/- 0.03", summarize_sample(ratios.at(node.name)),
                false, 1, {t - 0.03, t + 0.03});
    }
    for (const TestbedNode& node : tb.nodes) {
      print_row("CV across runs " + node.name + " (%)", "<= 2", summarize_sample(speeds.at(node.name)),
                true, 100, {0, 0.02});
    }
    // "Within 10 s on any node": each node's mean, and the longest single run of all.
    double longest = 0;
    std::string longest_node;
    for (const TestbedNode& node : tb.nodes) {
      const std::vector<double>& t = times.at(node.name);
      print_row("classification time " + node.name + " (s)", "<= 10", summarize_sample(t), false, 1,
                {0, 10});
      for (double x : t) {
        if (x > longest) {
          longest = x;
          longest_node = node.name;
        }
      }
    }
    std::printf("%-34s %-14s %3s %9.4g  %-18s  %s\n", ("longest classification (" + longest_node + ")").c_str(),
                "<= 10", "", longest, "", longest <= 10 ? "met" : "missed");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "classify_targets: %s\n", e.what());
    return 1;
  }
}
