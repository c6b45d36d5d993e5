// hetscale-commbench: the network calibration of a real cluster, run through srun like the
// kernels (one rank per node): ping-pong between two nodes over message sizes, broadcast,
// barrier and all-reduce over process counts, every message sent and waited for as the
// kernels do (their collectives, HETSCALE_MPI_WAIT) and the collectives timed as the
// kernels meet them, one rank arriving late. Rank 0 fits T_send(N), T_bcast(p),
// T_barrier(p) and T_allreduce(p) (hetscale/network_calibration.hpp), prints everything
// as JSON and can write the site table again with the [network] table the fit implies,
// the collectives' overheads included (docs/twin.md, "Calibration").
//   srun --mpi=pmix -N4 --ntasks-per-node=1 hetscale-commbench [--site F --site-out F]
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/collectives.hpp"
#include "common/mpi_wait.hpp"
#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/model/network_calibration.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "hetscale/site/site_table.hpp"

namespace {

using hetscale::CommMeasurements;
using hetscale::CommModels;
using hetscale::kernels::WaitMode;

struct Options {
  std::vector<long> sizes{1, 64, 1024, 16384, 262144, 1048576, 4194304};
  int repetitions = 20;
  int bcast_bytes = 8;
  double skew_us = 1000;
  std::string site;
  std::string site_out;
};

// Every rank's host name, by rank.
std::vector<std::string> host_names(int size) {
  std::array<char, MPI_MAX_PROCESSOR_NAME> mine{};
  int length = 0;
  MPI_Get_processor_name(mine.data(), &length);
  std::vector<char> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                static_cast<int>(mine.size()), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.emplace_back(all.data() + r * mine.size());
  return hosts;
}

// One message of `bytes` sent or received and waited for as the kernels do.
void send(std::vector<char>& buffer, long bytes, int to, WaitMode mode) {
  std::vector<MPI_Request> requests;
  hetscale::kernels::start_send(buffer.data(), static_cast<std::size_t>(bytes), MPI_CHAR, to, 0,
                                MPI_COMM_WORLD, requests);
  hetscale::kernels::complete_all(requests, mode, "MPI_Isend");
}
void receive(std::vector<char>& buffer, long bytes, int from, WaitMode mode) {
  std::vector<MPI_Request> requests;
  hetscale::kernels::start_receive(buffer.data(), static_cast<std::size_t>(bytes), MPI_CHAR, from, 0,
                                   MPI_COMM_WORLD, requests);
  hetscale::kernels::complete_all(requests, mode, "MPI_Irecv");
}

// One-way time of a message of `bytes` between rank 0 and `peer` (half a round trip),
// the median over the repetitions after two warm-up round trips; 0 on other ranks.
double ping_pong(int rank, int peer, long bytes, int repetitions, WaitMode mode) {
  std::vector<char> buffer(static_cast<std::size_t>(std::max(bytes, 1L)));
  std::vector<double> times;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < repetitions + 2; ++i) {
    if (rank == 0) {
      const double start = MPI_Wtime();
      send(buffer, bytes, peer, mode);
      receive(buffer, bytes, peer, mode);
      if (i >= 2) times.push_back((MPI_Wtime() - start) / 2);
    } else if (rank == peer) {
      receive(buffer, bytes, 0, mode);
      send(buffer, bytes, 0, mode);
    }
  }
  return rank == 0 ? hetscale::median(times) : 0;
}

struct CollectiveTimes {
  double bcast = 0;
  double barrier = 0;
  double allreduce = 0;
};

// Times of a broadcast of `bytes`, a barrier and an all-reduce of one (value, rank) pair
// (ge's pivot search) among the first `p` ranks, each called and waited for as the
// kernels do, and each timed as a kernel meets it: the ranks do not arrive together. The
// last rank (the broadcast's root) arrives `skew` seconds after the others, which wait
// as HETSCALE_MPI_WAIT says (sleeping ranks must wake up); a call's time is from that
// arrival to the end of the call on the slowest rank. Per repetition that time, then the
// median; 0 on ranks other than 0.
CollectiveTimes collectives(int rank, int p, int bytes, int repetitions, double skew, WaitMode mode) {
  namespace k = hetscale::kernels;
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < p ? 0 : MPI_UNDEFINED, rank, &sub);
  std::vector<double> bcast, barrier, allreduce;
  if (sub != MPI_COMM_NULL) {
    std::vector<char> buffer(static_cast<std::size_t>(std::max(bytes, 1)));
    const int late = p - 1;
    auto timed = [&](int i, std::vector<double>& times, auto&& call) {
      MPI_Barrier(sub);
      const double start = MPI_Wtime();
      if (rank == late)
        while (MPI_Wtime() - start < skew) {
        }
      call();
      const double mine = MPI_Wtime() - start - skew;
      double slowest = 0;
      MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, sub);
      if (i >= 2) times.push_back(std::max(0.0, slowest));
    };
    struct {
      double value;
      int rank;
    } candidate{static_cast<double>(rank), rank}, pivot{};
    for (int i = 0; i < repetitions + 2; ++i) {
      timed(i, bcast, [&] { k::broadcast(buffer.data(), static_cast<std::size_t>(bytes), MPI_CHAR, late, sub, mode); });
      timed(i, barrier, [&] { k::barrier(sub, mode); });
      timed(i, allreduce,
            [&] { k::allreduce(&candidate, &pivot, 1, MPI_DOUBLE_INT, MPI_MAXLOC, sub, mode); });
    }
    MPI_Comm_free(&sub);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) return {};
  return {hetscale::median(bcast), hetscale::median(barrier), hetscale::median(allreduce)};
}

// The process counts the collectives are timed at: 2..size when that is at most 16,
// else the powers of 2 up to size, and size.
std::vector<int> process_counts(int size) {
  std::vector<int> counts;
  if (size <= 16) {
    for (int p = 2; p <= size; ++p) counts.push_back(p);
  } else {
    for (int p = 2; p < size; p *= 2) counts.push_back(p);
    counts.push_back(size);
  }
  return counts;
}

nlohmann::json line_json(const hetscale::LineFit& fit) {
  return {{"intercept", fit.intercept}, {"slope", fit.slope}, {"r2", fit.r2}};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options options;
  CLI::App app{"hetscale-commbench: calibrate the network model of a cluster"};
  app.add_option("--sizes", options.sizes, "message sizes of the ping-pong, bytes")->delimiter(',');
  app.add_option("--repetitions", options.repetitions, "timed repetitions of each measurement")
      ->check(CLI::Range(1, 100000));
  app.add_option("--bcast-bytes", options.bcast_bytes, "bytes of each broadcast")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--skew-us", options.skew_us,
                 "how late the last rank arrives at each timed collective, microseconds")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--site", options.site, "site table to write again with the fitted [network]");
  app.add_option("--site-out", options.site_out, "where to write it (default: no site table)")
      ->needs("--site");
  int code = 0;
  WaitMode mode = WaitMode::spin;
  try {
    app.parse(argc, argv);
    mode = hetscale::kernels::wait_mode_from_variable(std::getenv("HETSCALE_MPI_WAIT"));
    if (size < 2) throw hetscale::Error("needs at least 2 ranks (one per node)");
    for (long bytes : options.sizes)
      if (bytes < 0 || bytes > (1L << 30)) throw hetscale::Error("--sizes: out of range");
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

  const std::vector<std::string> hosts = host_names(size);
  int peer = 1;
  for (int r = 1; r < size; ++r) {
    if (hosts[static_cast<std::size_t>(r)] != hosts[0]) {
      peer = r;
      break;
    }
  }
  CommMeasurements measured;
  for (long bytes : options.sizes) {
    const double t = ping_pong(rank, peer, bytes, options.repetitions, mode);
    if (rank == 0) measured.send.emplace_back(static_cast<double>(bytes), t);
  }
  for (int p : process_counts(size)) {
    const CollectiveTimes t = collectives(rank, p, options.bcast_bytes, options.repetitions, 1e-6 * options.skew_us, mode);
    if (rank == 0) {
      measured.bcast.emplace_back(p, t.bcast);
      measured.barrier.emplace_back(p, t.barrier);
      measured.allreduce.emplace_back(p, t.allreduce);
    }
  }

  if (rank == 0) {
    try {
      nlohmann::json out;
      out["hosts"] = hosts;
      out["wait"] = hetscale::kernels::to_string(mode);
      out["skew_us"] = options.skew_us;
      out["peer"] = {{"rank", peer}, {"host", hosts[static_cast<std::size_t>(peer)]},
                     {"other_node", hosts[static_cast<std::size_t>(peer)] != hosts[0]}};
      if (hosts[static_cast<std::size_t>(peer)] == hosts[0])
        std::fprintf(stderr, "hetscale-commbench: every rank is on %s: the figures are of "
                             "one node, not of the network\n", hosts[0].c_str());
      for (const auto& [bytes, seconds] : measured.send)
        out["send"].push_back({{"bytes", bytes}, {"seconds", seconds}});
      for (const auto& [p, seconds] : measured.bcast)
        out["bcast"].push_back({{"processes", p}, {"bytes", options.bcast_bytes}, {"seconds", seconds}});
      for (const auto& [p, seconds] : measured.barrier)
        out["barrier"].push_back({{"processes", p}, {"seconds", seconds}});
      for (const auto& [p, seconds] : measured.allreduce)
        out["allreduce"].push_back({{"processes", p}, {"seconds", seconds}});
      const CommModels models = hetscale::fit_comm_models(measured);
      out["models"] = {{"units", "seconds; N in bytes, p in processes"},
                       {"send", line_json(models.send)},
                       {"bcast", line_json(models.bcast)},
                       {"barrier", line_json(models.barrier)},
                       {"allreduce", line_json(models.allreduce)}};
      const hetscale::Network& network = models.network;
      out["network"] = {{"topology", "star"},
                        {"latency_us", network.latency_us},
                        {"bandwidth_MBps", network.bandwidth_MBps}};
      for (const hetscale::CollectiveOverheadField& field : hetscale::kCollectiveOverheadFields) {
        const std::string key = std::string(field.kind) + "_overhead_";
        const hetscale::CollectiveOverhead& overhead = network.*field.member;
        out["network"][key + "us"] = overhead.us;
        out["network"][key + "us_per_rank"] = overhead.us_per_rank;
        out["network"][key + "max_ranks"] = overhead.max_ranks;
      }
      std::printf("%s\n", out.dump(2).c_str());
      std::fprintf(stderr,
                   "T_send(N)    = %.4g + %.4g N ms (N bytes; r2 %.3f)\n"
                   "T_bcast(p)   = %.4g + %.4g p ms (%d bytes; r2 %.3f)\n"
                   "T_barrier(p) = %.4g + %.4g p ms (r2 %.3f)\n"
                   "T_allreduce(p) = %.4g + %.4g p ms (r2 %.3f)\n"
                   "[network] topology = \"star\", latency_us = %.4g, bandwidth_MBps = %.6g\n"
                   "overheads (us + us_per_rank p): barrier %.4g + %.4g p, broadcast %.4g + %.4g p, "
                   "allreduce %.4g + %.4g p (waiting: %s)\n",
                   1e3 * models.send.intercept, 1e3 * models.send.slope, models.send.r2,
                   1e3 * models.bcast.intercept, 1e3 * models.bcast.slope, options.bcast_bytes,
                   models.bcast.r2, 1e3 * models.barrier.intercept, 1e3 * models.barrier.slope,
                   models.barrier.r2, 1e3 * models.allreduce.intercept, 1e3 * models.allreduce.slope,
                   models.allreduce.r2, network.latency_us, network.bandwidth_MBps,
                   network.barrier_overhead.us, network.barrier_overhead.us_per_rank,
                   network.broadcast_overhead.us, network.broadcast_overhead.us_per_rank,
                   network.allreduce_overhead.us, network.allreduce_overhead.us_per_rank,
                   hetscale::kernels::to_string(mode));
      if (!options.site_out.empty()) {
        hetscale::SiteTable table = hetscale::load_site_table(options.site);
        table.network = models.network;
        hetscale::write_file_atomically(options.site_out, hetscale::format_site_table(table));
        std::fprintf(stderr, "wrote %s with the fitted [network]\n", options.site_out.c_str());
      }
    } catch (const hetscale::Error& e) {
      std::fprintf(stderr, "hetscale-commbench: error: %s\n", e.what());
      code = 1;
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
