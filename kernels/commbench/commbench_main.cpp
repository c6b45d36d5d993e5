// hetscale-commbench: the network probe of a set of nodes (docs/twin.md, "Calibration"),
// run through srun like the kernels, or under smpirun on the twin (hetscale-twin-commbench).
// Within a time budget it measures point-to-point times over log-uniform message sizes
// (between nodes, and within a node when two ranks share one) in a random order, fitted
// piecewise in the size with breakpoints found from the data; concurrent flows between
// pairs of nodes and an all-to-all among one rank per node (saturation); and the kernels'
// collectives per process count and size, timed as the kernels meet them (one rank late).
// Every message is sent and waited for as the kernels do (their collectives,
// HETSCALE_MPI_WAIT). Rank 0 prints everything as JSON (network_probe.hpp's keys and the
// linear models of the analytic prediction) and can write the site table again with the
// [network] table the linear fit implies.
//   srun --mpi=pmix -N4 --ntasks-per-node=1 hetscale-commbench [--site F --site-out F]
#include <mpi.h>

// SimGrid's smpicxx defines exit(x) as a macro for every file it compiles; CLI11 declares
// App::exit. This program never calls exit(): it returns from main on every rank.
#ifdef exit
#undef exit
#endif
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/engine.hpp"
#include "common/mpi_wait.hpp"
#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/model/network_calibration.hpp"
#include "hetscale/model/network_probe.hpp"
#include "hetscale/model/probe_plan.hpp"
#include "hetscale/site/site_table.hpp"
#include "measurements.hpp"
#include "serial/blas.hpp"

namespace {

using hetscale::CollectiveSample;
using hetscale::MessagePattern;
using hetscale::NetworkProbe;
using hetscale::commbench::CollectiveItem;
using hetscale::commbench::Run;
namespace k = hetscale::kernels;

constexpr double kGiB = 1024.0 * 1024 * 1024;

struct Options {
  std::vector<long> sizes;  // the sweep's sizes when given; else log-uniform up to max_bytes
  double max_bytes = kGiB;
  int per_decade = 5;
  int repetitions = k::simgrid_build ? 1 : 20;
  double full_bytes = 1 << 20;
  int bcast_bytes = 8;
  double skew_us = 1000;
  double budget_seconds = 60;
  double saturation_bytes = 4 << 20;
  double alltoall_bytes = 64 << 20;
  double collective_max_bytes = 16 << 20;
  std::string load = "none";
  int load_threads = 0;
  std::uint64_t seed = 1;
  std::string experiment;
  int machine_set = -1;
  std::string output;
  std::string site;
  std::string site_out;
};

// The budget's shares, in the order of the phases; what a phase leaves, the next may use.
constexpr double kPointToPointShare = 0.5;
constexpr double kSaturationShare = 0.2;

// Every rank's host, by rank.
std::vector<std::string> host_names(int size) {
  std::string mine = k::rank_host_name();
  mine.resize(MPI_MAX_PROCESSOR_NAME - 1);
  std::vector<char> all(MPI_MAX_PROCESSOR_NAME * static_cast<std::size_t>(size));
  MPI_Allgather(mine.c_str(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  return hosts;
}

// Work beside the measurements on `threads` threads of every rank until destroyed: a
// spinning loop or dgemm (256 x 256, one thread of OpenBLAS each).
class ComputeLoad {
 public:
  ComputeLoad(const std::string& kind, int threads) {
    if (kind == "none") return;
    if (kind == "dgemm") k::use_single_threaded_blas();
    for (int t = 0; t < threads; ++t)
      threads_.emplace_back([this, kind] {
        if (kind == "spin") {
          volatile double x = 1;
          while (!stop_.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
          return;
        }
        constexpr std::size_t n = 256;
        std::vector<double> a(n * n, 1.0), b(n * n, 0.5), c(n * n, 0.0);
        while (!stop_.load(std::memory_order_relaxed)) k::multiply(n, n, a.data(), b.data(), c.data());
      });
  }
  ComputeLoad(const ComputeLoad&) = delete;
  ComputeLoad& operator=(const ComputeLoad&) = delete;
  ~ComputeLoad() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// The collectives to time: first at every process count a broadcast of --bcast-bytes, a
// barrier and ge's 12-byte all-reduce (the linear models' points), then every pattern at
// every count and size in a random order.
std::vector<CollectiveItem> collective_items(const Options& o, int size) {
  std::vector<CollectiveItem> first, rest;
  const std::vector<int> counts = hetscale::collective_process_counts(size);
  for (const int p : counts) {
    first.push_back({MessagePattern::broadcast, p, static_cast<double>(o.bcast_bytes)});
    first.push_back({MessagePattern::barrier, p, 0});
    first.push_back({MessagePattern::allreduce, p, 12});
  }
  for (const int p : counts)
    for (const MessagePattern pattern : hetscale::kMessagePatterns) {
      if (pattern == MessagePattern::send) continue;
      for (const double bytes : hetscale::collective_sizes(pattern, o.collective_max_bytes, p)) {
        const CollectiveItem item{pattern, p, bytes};
        if (std::none_of(first.begin(), first.end(), [&](const CollectiveItem& f) {
              return f.pattern == item.pattern && f.processes == item.processes && f.bytes == item.bytes;
            }))
          rest.push_back(item);
      }
    }
  for (const std::size_t i : hetscale::shuffled_order(rest.size(), o.seed + 2)) first.push_back(rest[i]);
  return first;
}

std::string engine_name() {
  if constexpr (k::simgrid_build) return "simgrid";
  const char* job = std::getenv("SLURM_JOB_ID");
  return job != nullptr && *job != '\0' ? "slurm" : "mpirun";
}

std::optional<std::uint64_t> slurm_job_id() {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (k::simgrid_build || job == nullptr || *job == '\0') return std::nullopt;
  try {
    return std::stoull(job);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<int> machine_set(const Options& o) {
  if (o.machine_set >= 0) return o.machine_set;
  const char* set = std::getenv("HETSCALE_MACHINE_SET");
  if (set == nullptr || *set == '\0') return std::nullopt;
  try {
    return std::stoi(set);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

nlohmann::json line_json(const hetscale::LineFit& fit) {
  return {{"intercept", fit.intercept}, {"slope", fit.slope}, {"r2", fit.r2}};
}

std::vector<hetscale::SizedTime> sized_times(const std::vector<hetscale::MessageSample>& samples) {
  std::vector<hetscale::SizedTime> out;
  for (const auto& s : samples) out.push_back({s.bytes, s.seconds});
  return out;
}

// The probe's figures and the linear models of today's analytic prediction, as JSON; a
// summary on stderr; the site table with the fitted [network] when asked.
int report(const Options& o, NetworkProbe& probe, const hetscale::CommMeasurements& legacy) {
  nlohmann::json out;
  hetscale::add_network_probe_json(out, probe);
  out["peer"] = {{"rank", probe.remote ? probe.remote->second_rank : probe.local->second_rank},
                 {"host", probe.remote ? probe.remote->second_host : probe.local->second_host},
                 {"other_node", probe.remote.has_value()}};
  out["send"] = nlohmann::json::array();
  for (const auto& [bytes, seconds] : legacy.send) out["send"].push_back({{"bytes", bytes}, {"seconds", seconds}});
  for (const char* key : {"bcast", "barrier", "allreduce"}) out[key] = nlohmann::json::array();
  for (const auto& [p, seconds] : legacy.bcast)
    out["bcast"].push_back({{"processes", p}, {"bytes", o.bcast_bytes}, {"seconds", seconds}});
  for (const auto& [p, seconds] : legacy.barrier) out["barrier"].push_back({{"processes", p}, {"seconds", seconds}});
  for (const auto& [p, seconds] : legacy.allreduce)
    out["allreduce"].push_back({{"processes", p}, {"seconds", seconds}});
  std::optional<hetscale::CommModels> models;
  try {
    models = hetscale::fit_comm_models(legacy);
  } catch (const hetscale::Error& e) {
    if (!o.site_out.empty()) throw;
    out["models"] = nullptr;
    out["network"] = nullptr;
    out["models_absent"] = e.what();
  }
  if (models) {
    out["models"] = {{"units", "seconds; N in bytes, p in processes"},
                     {"send", line_json(models->send)},
                     {"bcast", line_json(models->bcast)},
                     {"barrier", line_json(models->barrier)},
                     {"allreduce", line_json(models->allreduce)}};
    const hetscale::Network& network = models->network;
    out["network"] = {{"topology", "star"}, {"latency_us", network.latency_us}, {"bandwidth_MBps", network.bandwidth_MBps}};
    for (const hetscale::CollectiveOverheadField& field : hetscale::kCollectiveOverheadFields) {
      const std::string key = std::string(field.kind) + "_overhead_";
      const hetscale::CollectiveOverhead& overhead = network.*field.member;
      out["network"][key + "us"] = overhead.us;
      out["network"][key + "us_per_rank"] = overhead.us_per_rank;
      out["network"][key + "max_ranks"] = overhead.max_ranks;
    }
  }
  const std::string text = out.dump(2) + "\n";
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else {
    hetscale::write_file_atomically(o.output, text);
  }

  for (const auto* p2p : {probe.remote ? &*probe.remote : nullptr, probe.local ? &*probe.local : nullptr}) {
    if (p2p == nullptr) continue;
    std::fprintf(stderr, "point to point %s to %s (%zu sizes):", p2p->first_host.c_str(), p2p->second_host.c_str(),
                 p2p->samples.size());
    for (const hetscale::LinearSegment& s : p2p->fit.segments)
      std::fprintf(stderr, " [%.6g .. %.6g B: %.4g us + %.6g MB/s]", s.first_bytes, s.last_bytes,
                   1e6 * s.latency_seconds, s.seconds_per_byte > 0 ? 1e-6 / s.seconds_per_byte : 0.0);
    std::fprintf(stderr, " (relative rms %.3g)\n", p2p->fit.relative_rms);
  }
  if (!probe.local_absent.empty()) std::fprintf(stderr, "no point to point within a node: %s\n", probe.local_absent.c_str());
  if (probe.saturation) {
    std::fprintf(stderr, "saturation (%s, %.6g B a flow):", probe.saturation->pairing.c_str(),
                 probe.saturation->message_bytes);
    for (const auto& s : probe.saturation->points) std::fprintf(stderr, " %d flows %.6g MB/s each;", s.flows, s.per_flow_MBps);
    if (probe.saturation->alltoall)
      std::fprintf(stderr, " all-to-all of %d: %.6g MB/s each", probe.saturation->alltoall->processes,
                   probe.saturation->alltoall->per_flow_MBps);
    std::fprintf(stderr, "\n");
  } else {
    std::fprintf(stderr, "no saturation test: %s\n", probe.saturation_absent.c_str());
  }
  std::fprintf(stderr, "collectives: %zu timed; %.3g s of a %.3g s budget (waiting: %s, load: %s)\n",
               probe.collectives.size(), probe.elapsed_seconds, probe.budget_seconds, probe.wait.c_str(),
               probe.load.c_str());
  if (models) {
    std::fprintf(stderr,
                 "T_send(N)    = %.4g + %.4g N ms (N bytes; r2 %.3f)\n"
                 "[network] topology = \"star\", latency_us = %.4g, bandwidth_MBps = %.6g\n",
                 1e3 * models->send.intercept, 1e3 * models->send.slope, models->send.r2,
                 models->network.latency_us, models->network.bandwidth_MBps);
  } else {
    std::fprintf(stderr, "no linear models: %s\n", out["models_absent"].get<std::string>().c_str());
  }
  if (!o.site_out.empty()) {
    hetscale::SiteTable table = hetscale::load_site_table(o.site);
    table.network = models->network;
    hetscale::write_file_atomically(o.site_out, hetscale::format_site_table(table));
    std::fprintf(stderr, "wrote %s with the fitted [network]\n", o.site_out.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  k::begin_engine();
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  CLI::App app{"hetscale-commbench: probe the network of a set of nodes (docs/twin.md)"};
  app.add_option("--sizes", o.sizes, "sizes of the point-to-point sweep, bytes (default: log-uniform up to --max-bytes)")
      ->delimiter(',');
  app.add_option("--max-bytes", o.max_bytes, "the sweep's largest message, bytes")->check(CLI::Range(1.0, kGiB));
  app.add_option("--per-decade", o.per_decade, "sizes a decade of the sweep")->check(CLI::Range(1, 100));
  app.add_option("--repetitions", o.repetitions, "timed repetitions of a measurement that moves at most --full-bytes")
      ->check(CLI::Range(1, 100000));
  app.add_option("--full-bytes", o.full_bytes, "above this many bytes a measurement is repeated fewer times")
      ->check(CLI::Range(1.0, kGiB));
  app.add_option("--bcast-bytes", o.bcast_bytes, "bytes of the broadcast of the linear models")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--skew-us", o.skew_us, "how late the last rank arrives at each timed collective, microseconds")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--budget-seconds", o.budget_seconds, "time the measurements may take (a measurement under way ends)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--saturation-bytes", o.saturation_bytes, "bytes of each flow of the saturation test")
      ->check(CLI::Range(1.0, kGiB));
  app.add_option("--alltoall-bytes", o.alltoall_bytes, "bytes each rank sends in all in the saturation all-to-all")
      ->check(CLI::Range(1.0, kGiB));
  app.add_option("--collective-max-bytes", o.collective_max_bytes, "the collectives' largest size, bytes")
      ->check(CLI::Range(8.0, kGiB));
  app.add_option("--load", o.load, "work beside the measurements on every rank: none, spin or dgemm")
      ->check(CLI::IsMember({"none", "spin", "dgemm"}));
  app.add_option("--load-threads", o.load_threads, "threads of --load a rank (default: the node's cores left)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--seed", o.seed, "seed of the random order of the measurements");
  app.add_option("--experiment", o.experiment, "the experiment the probe belongs to (kept in its output)");
  app.add_option("--machine-set", o.machine_set, "the machine set probed (default: HETSCALE_MACHINE_SET)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--output", o.output, "write the JSON here (atomically) instead of to stdout");
  app.add_option("--site", o.site, "site table: the nodes' groups (saturation pairs) and what --site-out rewrites");
  app.add_option("--site-out", o.site_out, "write the site table with the fitted [network] here")->needs("--site");
  int code = 0;
  Run run;
  run.rank = rank;
  run.size = size;
  hetscale::SiteTable site;
  try {
    app.parse(argc, argv);
    run.wait = k::wait_mode_from_variable(std::getenv("HETSCALE_MPI_WAIT"));
    if (size < 2) throw hetscale::Error("needs at least 2 ranks (one per node)");
    for (long bytes : o.sizes)
      if (bytes < 1 || bytes > (1L << 30)) throw hetscale::Error("--sizes: out of range (1 byte to 1 GiB)");
    if (k::simgrid_build && o.load != "none")
      throw hetscale::Error("--load: the twin models no work beside its messages; leave --load out");
    if (!o.site.empty()) site = hetscale::load_site_table(o.site);
  } catch (const CLI::ParseError& e) {
    code = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    if (e.get_exit_code() == 0) code = 0;
    MPI_Finalize();
    return code;
  } catch (const hetscale::Error& e) {
    if (rank == 0) std::fprintf(stderr, "hetscale-commbench: error: %s\n", e.what());
    MPI_Finalize();
    return 2;
  }
  run.compute = k::default_compute_mode();
  run.repetitions = o.repetitions;
  run.full_bytes = o.full_bytes;
  run.skew_seconds = 1e-6 * o.skew_us;
  // Folded buffers (the twin) in blocks that keep a 1 GiB message within its mappings.
  k::prepare_engine(run.compute, 8192);

  NetworkProbe probe;
  probe.engine = engine_name();
  probe.experiment = o.experiment;
  probe.site = site.name;
  probe.machine_set = machine_set(o);
  probe.slurm_job_id = slurm_job_id();
  probe.measured_at = hetscale::utc_time_now();
  probe.hosts = host_names(size);
  probe.wait = k::to_string(run.wait);
  probe.load = o.load;
  probe.skew_us = o.skew_us;
  probe.budget_seconds = o.budget_seconds;

  // The pairs: rank 0 with the first rank on another node, and with the first other rank
  // on its own node.
  const auto& hosts = probe.hosts;
  int remote = -1, local = -1;
  for (int r = 1; r < size; ++r) {
    if (hosts[static_cast<std::size_t>(r)] != hosts[0] && remote < 0) remote = r;
    if (hosts[static_cast<std::size_t>(r)] == hosts[0] && local < 0) local = r;
  }
  const std::vector<std::string> nodes = probe.nodes();
  if (local < 0)
    probe.local_absent = nodes.size() == hosts.size() ? "every rank is on its own node"
                                                      : "no other rank shares rank 0's node";
  std::vector<int> leaders;  // the first rank of each node
  for (const std::string& node : nodes)
    leaders.push_back(static_cast<int>(std::find(hosts.begin(), hosts.end(), node) - hosts.begin()));

  int threads = o.load_threads;
  if (threads == 0) {
    const auto on_node = std::count(hosts.begin(), hosts.end(), hosts[static_cast<std::size_t>(rank)]);
    threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / static_cast<int>(on_node) - 1);
  }
  hetscale::CommMeasurements legacy;
  try {
    const ComputeLoad load(o.load, threads);
    MPI_Barrier(MPI_COMM_WORLD);
    run.start = MPI_Wtime();
    const double budget = o.budget_seconds;

    std::vector<double> sizes;
    if (o.sizes.empty()) {
      sizes = hetscale::log_uniform_sizes(o.max_bytes, o.per_decade);
    } else {
      for (long b : o.sizes) sizes.push_back(static_cast<double>(b));
    }
    const std::vector<std::size_t> order = hetscale::shuffled_order(sizes.size(), o.seed);
    const double p2p_deadline = budget * kPointToPointShare;
    const auto sweep = [&](int peer, double deadline) {
      hetscale::PointToPointProbe p2p;
      p2p.first_rank = 0;
      p2p.second_rank = peer;
      p2p.first_host = hosts[0];
      p2p.second_host = hosts[static_cast<std::size_t>(peer)];
      p2p.samples = hetscale::commbench::point_to_point_sweep(run, peer, sizes, order, deadline);
      if (rank == 0) p2p.fit = hetscale::fit_piecewise_linear(sized_times(p2p.samples));
      return p2p;
    };
    if (remote >= 0) probe.remote = sweep(remote, local >= 0 ? p2p_deadline / 2 : p2p_deadline);
    if (local >= 0) probe.local = sweep(local, p2p_deadline);
    if (rank == 0 && probe.remote)
      for (const auto& s : probe.remote->samples) legacy.send.emplace_back(s.bytes, s.seconds);
    if (rank == 0 && !probe.remote)
      for (const auto& s : probe.local->samples) legacy.send.emplace_back(s.bytes, s.seconds);

    const double saturation_deadline = budget * (kPointToPointShare + kSaturationShare);
    if (leaders.size() < 2) {
      probe.saturation_absent = "one node: no flows between nodes";
    } else {
      std::vector<std::string> groups, group_order;
      for (const auto& g : site.groups) group_order.push_back(g.name);
      for (const std::string& node : nodes) {
        const auto it = std::find_if(site.nodes.begin(), site.nodes.end(), [&](const auto& n) { return n.name == node; });
        groups.push_back(it == site.nodes.end() ? std::string() : it->group);
      }
      const hetscale::NodePairs pairs = hetscale::saturation_pairs(nodes.size(), groups, group_order);
      hetscale::SaturationProbe saturation;
      saturation.message_bytes = o.saturation_bytes;
      saturation.pairing = pairs.pairing;
      std::vector<std::pair<int, int>> ranks;
      for (const auto& [a, b] : pairs.pairs) {
        saturation.pairs.emplace_back(nodes[a], nodes[b]);
        ranks.emplace_back(leaders[a], leaders[b]);
      }
      saturation.points = hetscale::commbench::saturation_flows(
          run, ranks, hetscale::saturation_flow_counts(static_cast<int>(ranks.size())), o.saturation_bytes,
          saturation_deadline);
      const double per_pair =
          std::floor(std::min(o.saturation_bytes, o.alltoall_bytes / static_cast<double>(leaders.size())));
      if (per_pair >= 1)
        saturation.alltoall = hetscale::commbench::alltoall_among(run, leaders, per_pair, saturation_deadline);
      probe.saturation = saturation;
    }

    const std::vector<CollectiveSample> collectives =
        hetscale::commbench::time_collectives(run, collective_items(o, size), budget);
    probe.collectives = collectives;
    for (const CollectiveSample& c : collectives) {
      if (c.pattern == MessagePattern::broadcast && c.bytes == o.bcast_bytes) legacy.bcast.emplace_back(c.processes, c.seconds);
      if (c.pattern == MessagePattern::barrier) legacy.barrier.emplace_back(c.processes, c.seconds);
      if (c.pattern == MessagePattern::allreduce && c.bytes == 12) legacy.allreduce.emplace_back(c.processes, c.seconds);
    }
    probe.elapsed_seconds = MPI_Wtime() - run.start;
  } catch (const hetscale::Error& e) {
    std::fprintf(stderr, "hetscale-commbench: error on rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  if (rank == 0) {
    try {
      if (probe.saturation && probe.saturation->points.empty() && !probe.saturation->alltoall) {
        probe.saturation_absent = "the budget ran out before the saturation test";
        probe.saturation.reset();
      }
      code = report(o, probe, legacy);
    } catch (const hetscale::Error& e) {
      std::fprintf(stderr, "hetscale-commbench: error: %s\n", e.what());
      code = 1;
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
