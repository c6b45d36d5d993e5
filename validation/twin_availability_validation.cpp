// The twin under changing availability against the Monte Carlo simulator
// (docs/validation-availability.md, "The twin under simulated availability"). For small
// sites of shared computers (max speed alpha_i, availability uniform with mean a_i and sd
// sigma_Ai, intervals uniform in [0, 20] s), per case:
//  1. `hetscale equalize` computes the equalized partition for the work W of `mm -N N`
//     (step 2, written as a partition file); the proportional one gives each host work in
//     proportion to its mean speed alpha_i a_i;
//  2. `hetscale simulate` predicts tau for both partitions (same computers, same W);
//  3. per seed, `hetscale twin platform --availability ... --seed S` draws one availability
//     history per host, and hetscale-twin-mm (flops charged) runs once with each partition
//     on it: the two partitions meet the same histories (common random numbers).
// Prints one table: mean simulated time of the twin (standard error over seeds) against
// simulate's tau, for both partitions, and the gain of the equalized one.
//   twin_availability_validation --hetscale BIN --smpirun BIN --kernel BIN --work DIR
//                           [--seeds S] [--repetitions R]
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/model/equalization.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/site/site_table.hpp"

namespace {

namespace fs = std::filesystem;

constexpr double kMaxInterval = 20;  // seconds of simulated time, the paper's

struct Host {
  double mflops;  // alpha_i
  double mean;    // a_i
  double sd;      // sigma_Ai
};

struct Case {
  std::string name;
  int n;  // mm -N: W = 2 N^3 flops
  std::vector<Host> hosts;
};

const std::vector<Case> kCases = {
    {"2 hosts", 1024, {{20, 0.5, 0.05}, {10, 0.5, 0.25}}},
    {"4 hosts", 1280, {{20, 0.6, 0.05}, {16, 0.5, 0.1}, {12, 0.5, 0.2}, {8, 0.5, 0.28}}},
    // Equal speeds, the variability alone differs.
    {"4 equal", 1024, {{10, 0.5, 0.02}, {10, 0.5, 0.1}, {10, 0.5, 0.2}, {10, 0.5, 0.28}}},
};

struct Paths {
  std::string hetscale;
  std::string smpirun;
  std::string kernel;
  fs::path work;
};

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// Runs `command` with its stderr in `log`; its stdout, or an exception with the log.
std::string run(const std::string& command, const fs::path& log) {
  FILE* pipe = ::popen((command + " 2>" + quoted(log)).c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    throw std::runtime_error(fmt::format("failed: {}\n{}{}", command, out, err));
  }
  return out;
}

std::string group_of(std::size_t i) { return fmt::format("g{}", i + 1); }
std::string host_of(std::size_t i) { return fmt::format("h{}", i + 1); }

struct Mean {
  double mean = 0;
  double se = 0;  // standard error
};

Mean mean_of(const std::vector<double>& xs) {
  const double n = static_cast<double>(xs.size());
  Mean m;
  for (double x : xs) m.mean += x / n;
  double sq = 0;
  for (double x : xs) sq += (x - m.mean) * (x - m.mean);
  m.se = std::sqrt(sq / (n - 1) / n);
  return m;
}

struct CaseResult {
  Mean proportional;
  Mean equalized;
  Mean gain;  // percent, paired over seeds
  double simulated_proportional = 0;
  double simulated_equalized = 0;
  double simulated_gain = 0;
  std::vector<double> proportional_shares;
  std::vector<double> equalized_shares;
};

double twin_time(const Paths& paths, const fs::path& platform_dir, std::size_t ranks, int n,
                 const std::string& weights, const fs::path& record) {
  fs::remove(record);
  run(fmt::format("{} -no-privatize -platform {} -hostfile {} -np {} "
                  "--cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree --cfg=smpi/wtime:0 "
                  "--log=root.thres:warning {} -N {} {} --record {}",
                  paths.smpirun, quoted(platform_dir / "platform.xml"),
                  quoted(platform_dir / "hostfile"), ranks, paths.kernel, n, weights,
                  quoted(record)),
      record.string() + ".log");
  const hetscale::RunRecordFile file = hetscale::read_run_records(record, hetscale::OnInvalid::fail);
  if (file.records.size() != 1) throw std::runtime_error(record.string() + ": not one record");
  return file.records.front().record.wall_seconds;
}

CaseResult run_case(const Case& c, const Paths& paths, int seeds, int repetitions) {
  std::string slug = c.name;
  for (char& ch : slug)
    if (ch == ' ') ch = '-';
  const fs::path dir = paths.work / slug;
  fs::create_directories(dir);
  const double work = 2.0 * c.n * c.n * c.n;
  const double correlation = hetscale::correlation_time_of_uniform_intervals(kMaxInterval);

  // The site (one group per host), the nodes as equalize reads them, the computers as
  // simulate reads them, and the --availability options of the platform.
  hetscale::SiteTable site;
  site.name = "availability-bench";
  site.speed_unit = "Mflops";
  std::string nodes = "node,speed,th\n";
  std::string computers = "name,max_power,availability,availability_sd\n";
  std::string availability;
  std::string proportional = "--weights ";
  double total_speed = 0;
  for (std::size_t i = 0; i < c.hosts.size(); ++i) {
    const Host& h = c.hosts[i];
    const double speed = h.mflops * 1e6 * h.mean;
    total_speed += speed;
    site.groups.push_back({.name = group_of(i), .marked_speed = h.mflops, .where = {}});
    site.nodes.push_back({.name = host_of(i), .group = group_of(i), .processors = 1, .marked_speed = h.mflops,
                          .state = hetscale::NodeState::ok, .where = {}});
    nodes += fmt::format("{},{},{}\n", host_of(i), speed, h.sd / h.mean);
    computers += fmt::format("{},{},{},{}\n", host_of(i), h.mflops * 1e6, h.mean, h.sd);
    availability += fmt::format(" --availability {}={}:{}", group_of(i), h.mean, h.sd);
    proportional += fmt::format("{}{}", i == 0 ? "" : ",", speed);
  }
  hetscale::write_file_atomically(dir / "site.toml", hetscale::format_site_table(site));
  hetscale::write_file_atomically(dir / "nodes.csv", nodes);
  hetscale::write_file_atomically(dir / "computers.csv", computers);

  CaseResult result;
  // Step 2 for the time the proportional partition takes on average (W / sum s_i).
  run(fmt::format("{} equalize --input {} --seconds {} --correlation-time {} --site "
                  "availability-bench -o {} --format json",
                  paths.hetscale, quoted(dir / "nodes.csv"), work / total_speed, correlation,
                  quoted(dir / "equalized.toml")),
      dir / "equalize.log");
  const nlohmann::json simulated = nlohmann::json::parse(
      run(fmt::format("{} simulate --computers {} --partition proportional equalized "
                      "--total-work {} --interval {} --repetitions {} --seed 1 --format json",
                      paths.hetscale, quoted(dir / "computers.csv"), work, kMaxInterval,
                      repetitions),
          dir / "simulate.log"));
  result.simulated_proportional = simulated.at(0).at("tau").get<double>();
  result.simulated_equalized = simulated.at(1).at("tau").get<double>();
  result.simulated_gain = simulated.at(1).at("gain_vs_first").get<double>();

  std::vector<double> prop_times;
  std::vector<double> eq_times;
  std::vector<double> gains;
  for (int seed = 1; seed <= seeds; ++seed) {
    const fs::path platform = dir / fmt::format("seed-{}", seed);
    run(fmt::format("{} twin platform --site {} -o {}{} --max-interval {} --seed {}",
                    paths.hetscale, quoted(dir / "site.toml"), quoted(platform), availability,
                    kMaxInterval, seed),
        platform.string() + ".log");
    const fs::path record = platform / "run.jsonl";
    prop_times.push_back(twin_time(paths, platform, c.hosts.size(), c.n, proportional, record));
    eq_times.push_back(twin_time(paths, platform, c.hosts.size(), c.n,
                                 "--weights-file " + quoted(dir / "equalized.toml"), record));
    gains.push_back(prop_times.back() - eq_times.back());
  }
  result.proportional = mean_of(prop_times);
  result.equalized = mean_of(eq_times);
  const Mean difference = mean_of(gains);
  result.gain = {100 * difference.mean / result.proportional.mean,
                 100 * difference.se / result.proportional.mean};
  for (std::size_t i = 0; i < c.hosts.size(); ++i)
    result.proportional_shares.push_back(c.hosts[i].mflops * 1e6 * c.hosts[i].mean / total_speed);
  // The equalized shares, as the partition file holds them.
  std::ifstream in(dir / "equalized.toml");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("weight = ")) result.equalized_shares.push_back(std::stod(line.substr(9)));
  return result;
}

std::string shares(const std::vector<double>& xs) {
  std::string out;
  for (double x : xs) out += fmt::format("{}{:.3f}", out.empty() ? "" : "/", x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Paths paths;
  int seeds = 300;
  int repetitions = 20000;
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  if (argc % 2 == 0 || !args.contains("--hetscale") || !args.contains("--smpirun") ||
      !args.contains("--kernel") || !args.contains("--work")) {
    std::fprintf(stderr,
                 "usage: twin_availability_validation --hetscale BIN --smpirun BIN --kernel BIN "
                 "--work DIR [--seeds S] [--repetitions R]\n");
    return 2;
  }
  paths = {args["--hetscale"], args["--smpirun"], args["--kernel"], args["--work"]};
  if (args.contains("--seeds")) seeds = std::stoi(args["--seeds"]);
  if (args.contains("--repetitions")) repetitions = std::stoi(args["--repetitions"]);
  try {
    fmt::print("availability uniform (mean a, sd sigma), intervals uniform in [0, {}] s; "
               "hetscale-twin-mm, flops charged, {} seeds (one availability history per "
               "host and seed, both partitions on it); simulate: {} repetitions\n\n",
               kMaxInterval, seeds, repetitions);
    fmt::print("{:<8} {:>6} {:>17} {:>9} {:>17} {:>9} {:>14} {:>9}\n", "case", "N",
               "prop twin (se)", "prop sim", "eq twin (se)", "eq sim", "gain twin %", "gain sim %");
    std::vector<std::string> notes;
    for (const Case& c : kCases) {
      const CaseResult r = run_case(c, paths, seeds, repetitions);
      fmt::print("{:<8} {:>6} {:>9.2f} ({:>5.2f}) {:>9.2f} {:>9.2f} ({:>5.2f}) {:>9.2f} {:>6.2f} "
                 "({:>5.2f}) {:>9.2f}\n",
                 c.name, c.n, r.proportional.mean, r.proportional.se, r.simulated_proportional,
                 r.equalized.mean, r.equalized.se, r.simulated_equalized, r.gain.mean, r.gain.se,
                 r.simulated_gain);
      std::string hosts;
      for (const Host& h : c.hosts)
        hosts += fmt::format("{}{:g} Mflop/s a={:g} sd={:g}", hosts.empty() ? "" : ", ", h.mflops,
                             h.mean, h.sd);
      notes.push_back(fmt::format("{}: {}; shares proportional {}, equalized {}", c.name, hosts,
                                  shares(r.proportional_shares), shares(r.equalized_shares)));
    }
    fmt::print("\nseconds of simulated time; gain = (tau proportional - tau equalized) / tau "
               "proportional, for the twin paired over seeds\n");
    for (const std::string& note : notes) fmt::print("{}\n", note);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "twin_availability_validation: %s\n", e.what());
    return 1;
  }
  return 0;
}
