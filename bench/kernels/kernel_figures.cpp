// The kernels' figures in one run (docs/performance.md, "Kernels against dgemm"):
//  1. each kernel on one rank against dgemm on the same processor at the same size, the
//     two alternating, medians of --repeats runs;
//  2. conv2d with measured FFT plans against estimated ones, alternating;
//  3. mm on a full- and a half-speed node of the local cluster with the SPANK plugin's
//     weights (--hetscale-weights=marked) against none (off: equal weights), alternating.
// Prints the figures as Markdown and writes them between the markers of the section in
// docs/performance.md (--no-docs: print only). bench/kernels/kernel_figures.sh brings a
// cluster with the plugin up around it:
//   bench/kernels/kernel_figures.sh [--repeats R] [--cpu C] [--no-docs]
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace {

namespace fs = std::filesystem;
using hetscale::test::run_command;

constexpr const char* kBeginMarker = "<!-- bench_kernel_figures: begin -->";
constexpr const char* kEndMarker = "<!-- bench_kernel_figures: end -->";
const std::vector<std::string> kMpiRoot = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};

struct Options {
  int repeats = 5;
  int cpu = -1;  // the processor every single-rank run is pinned to; default: the last one
  bool write_docs = true;
  fs::path bin = HETSCALE_KERNEL_DIR;
  fs::path docs = fs::path(HETSCALE_SOURCE_DIR) / "docs" / "performance.md";
};

struct KernelRun {
  double seconds = 0;
  double work = 0;
  std::string weights_source;
};

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five;
  in >> one >> five;
  return one + " / " + five;
}

// The last run record of `file`.
nlohmann::json last_record(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  if (last.empty()) throw std::runtime_error("no run record in " + file.string());
  return nlohmann::json::parse(last);
}

KernelRun run_kernel(const std::vector<std::string>& command, const fs::path& record,
                     const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), {"--record", record.string()});
  const auto r = run_command(argv, std::chrono::minutes(10), env);
  if (!r.ok()) throw std::runtime_error(argv.front() + " ... failed: " + r.describe());
  const nlohmann::json rec = last_record(record);
  if (!rec.at("verified").get<bool>()) throw std::runtime_error("wrong answer: " + rec.dump());
  return {rec.at("wall_seconds").get<double>(), rec.at("work").get<double>(),
          rec.at("weights_source").get<std::string>()};
}

// One rank pinned to `cpu`: taskset sets the mask, mpirun keeps it (--bind-to none).
std::vector<std::string> one_rank(const Options& o, const std::string& kernel, std::size_t n) {
  return {"taskset", "-c",   std::to_string(o.cpu), "mpirun", "-np", "1", "--bind-to", "none",
          (o.bin / ("hetscale-" + kernel)).string(), "-N", std::to_string(n), "--weights", "equal"};
}

// dgemm's speed on `cpu` at order n, in Mflops (the median of its timed repetitions).
double dgemm_mflops(const Options& o, std::size_t n) {
  const auto r = run_command({(o.bin / "hetscale-markspeed").string(), "dgemm", "--cpus", std::to_string(o.cpu),
                              "--size", std::to_string(n), "--format", "json"},
                             std::chrono::minutes(10));
  if (!r.ok()) throw std::runtime_error("hetscale-markspeed failed: " + r.describe());
  return nlohmann::json::parse(r.out).at("median").get<double>();
}

std::string median_text(const std::vector<double>& values, const char* format) {
  return fmt::format(fmt::runtime(format), hetscale::median(values));
}

std::string kernels_against_dgemm(const Options& o, const fs::path& record) {
  struct Case {
    std::string kernel;
    std::size_t n;
  };
  const std::vector<Case> cases = {{"mm", 2048}, {"ge", 2048}, {"conv2d", 2048}, {"lu", 4096}};
  std::string out = fmt::format(
      "| kernel | N | kernel, 1 rank (Mop/s) | dgemm, same processor, order N (Mflops) | kernel / dgemm |\n"
      "|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    std::vector<double> kernel_speeds, dgemm_speeds;
    for (int i = 0; i < o.repeats; ++i) {
      const KernelRun run = run_kernel(one_rank(o, c.kernel, c.n), record, kMpiRoot);
      kernel_speeds.push_back(run.work / run.seconds / 1e6);
      dgemm_speeds.push_back(dgemm_mflops(o, c.n));
    }
    const double ratio = hetscale::median(kernel_speeds) / hetscale::median(dgemm_speeds);
    out += fmt::format("| {} | {} | {} | {} | **{:.3f}** |\n", c.kernel, c.n, median_text(kernel_speeds, "{:.0f}"),
                       median_text(dgemm_speeds, "{:.0f}"), ratio);
    std::fprintf(stderr, "kernel_figures: %s against dgemm done\n", c.kernel.c_str());
  }
  return out;
}

std::string fft_planning(const Options& o, const fs::path& record, const fs::path& wisdom) {
  std::string out =
      "| N | estimated plans: T (s) | measured plans: T (s) | measured / estimated |\n|---|---|---|---|\n";
  for (std::size_t n : {1000u, 1536u, 2048u}) {
    std::vector<std::string> base = one_rank(o, "conv2d", n);
    base.insert(base.end(), {"--fft-wisdom", wisdom.string()});
    auto with = [&](const char* planning) {
      std::vector<std::string> argv = base;
      argv.insert(argv.end(), {"--fft-planning", planning});
      return argv;
    };
    (void)run_kernel(with("measure"), record, kMpiRoot);  // measures and saves the wisdom
    std::vector<double> estimated, measured;
    for (int i = 0; i < o.repeats; ++i) {
      estimated.push_back(run_kernel(with("estimate"), record, kMpiRoot).seconds);
      measured.push_back(run_kernel(with("measure"), record, kMpiRoot).seconds);
    }
    out += fmt::format("| {} | {:.4f} | {:.4f} | **{:.3f}** |\n", n, hetscale::median(estimated),
                       hetscale::median(measured), hetscale::median(measured) / hetscale::median(estimated));
  }
  std::fprintf(stderr, "kernel_figures: FFT planning done\n");
  return out;
}

std::string weighted_against_equal(const Options& o, const fs::path& record) {
  const hetscale::test::Testbed tb = hetscale::test::Testbed::from_env();
  const std::string full = tb.node_with_speed(1.0).name;
  const std::string half = tb.node_with_speed(0.5).name;
  std::string out = fmt::format(
      "mm on {} (speed 1.0) and {} (speed 0.5), one rank each; weights from the plugin "
      "(`srun --hetscale-weights=marked`) against none (`--hetscale-weights=off`: equal weights).\n\n"
      "| N | marked: T (s) | off: T (s) | marked / off |\n|---|---|---|---|\n",
      full, half);
  for (std::size_t n : {2000u, 3000u}) {
    std::vector<double> marked, off;
    for (int i = 0; i < o.repeats; ++i) {
      for (const char* weights : {"marked", "off"}) {
        std::vector<std::string> argv = {"srun",
                                         "--mpi=pmix",
                                         "-N2",
                                         "-n2",
                                         "--ntasks-per-node=1",
                                         "-w",
                                         full + "," + half,
                                         std::string("--hetscale-weights=") + weights,
                                         (o.bin / "hetscale-mm").string(),
                                         "-N",
                                         std::to_string(n)};
        const KernelRun run = run_kernel(argv, record);
        const bool weighted = std::string(weights) == "marked";
        if (weighted != (run.weights_source == "marked"))
          throw std::runtime_error(fmt::format("--hetscale-weights={} gave weights from '{}'", weights,
                                               run.weights_source));
        (weighted ? marked : off).push_back(run.seconds);
      }
    }
    out += fmt::format("| {} | {:.3f} | {:.3f} | **{:.3f}** |\n", n, hetscale::median(marked),
                       hetscale::median(off), hetscale::median(marked) / hetscale::median(off));
  }
  std::fprintf(stderr, "kernel_figures: weighted against equal done\n");
  return out;
}

void write_section(const fs::path& docs, const std::string& section) {
  std::string text = hetscale::read_regular_file(docs, 1u << 20);
  const auto begin = text.find(kBeginMarker);
  const auto end = text.find(kEndMarker);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw std::runtime_error(docs.string() + ": no '" + kBeginMarker + "' ... '" + kEndMarker + "' section");
  const std::size_t from = begin + std::string(kBeginMarker).size();
  text.replace(from, end - from, "\n" + section);
  hetscale::write_file_atomically(docs, text);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(key + " needs a value");
      return argv[++i];
    };
    if (key == "--repeats") {
      o.repeats = std::stoi(value());
    } else if (key == "--cpu") {
      o.cpu = std::stoi(value());
    } else if (key == "--bin") {
      o.bin = value();
    } else if (key == "--no-docs") {
      o.write_docs = false;
    } else {
      throw std::runtime_error("unknown argument " + key + " (--repeats R, --cpu C, --bin DIR, --no-docs)");
    }
  }
  if (o.repeats < 1) throw std::runtime_error("--repeats must be at least 1");
  if (o.cpu < 0) o.cpu = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const fs::path dir = fs::temp_directory_path() / ("hetscale-kernel-figures-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path record = dir / "runs.jsonl";
    const std::string load_before = load_average();
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));

    std::string section = fmt::format(
        "Measured {} ({} runs of each, alternating; medians; single-rank runs pinned to processor {}; "
        "load average {} at the start",
        date, o.repeats, o.cpu, load_before);
    const std::string against_dgemm = kernels_against_dgemm(o, record);
    const std::string planning = fft_planning(o, record, dir / "wisdom");
    const std::string weighted = weighted_against_equal(o, record);
    section += fmt::format(", {} at the end).\n\n", load_average());
    section += "**Each kernel on one rank against dgemm** on the same processor at the same order "
               "(target for lu: >= 0.7):\n\n" +
               against_dgemm;
    section += "\n**conv2d's FFT plans**, one rank, measured (`--fft-planning measure`, wisdom saved by an "
               "untimed run first) against estimated:\n\n" +
               planning;
    section += "\n**Weights from the plugin against equal weights** (target <= 0.75, ideal 0.667): " + weighted;
    std::fputs(section.c_str(), stdout);
    if (o.write_docs) {
      write_section(o.docs, section);
      std::fprintf(stderr, "kernel_figures: written to %s\n", o.docs.c_str());
    }
    fs::remove_all(dir);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernel_figures: %s\n", e.what());
    return 1;
  }
}
