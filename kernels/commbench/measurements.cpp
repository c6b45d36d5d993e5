#include "measurements.hpp"

#include <algorithm>
#include <cmath>

#include "common/collectives.hpp"
#include "common/mpi_session.hpp"
#include "hetscale/model/probe_plan.hpp"
#include "hetscale/model/sample_statistics.hpp"

namespace hetscale::commbench {
namespace {

namespace k = kernels;

constexpr int flow_tag = 1;

// The probe's own synchronisation (its deadline, the start of a timed round), not a
// measurement: waiting as the kernels wait, without the collective overheads the twin
// charges after the kernels' collectives.
void synchronise(const Run& run, MPI_Comm comm) {
  if constexpr (k::simgrid_build) {
    k::check_mpi(MPI_Barrier(comm), "MPI_Barrier");
  } else {
    k::barrier(comm, run.wait);
  }
}

void tell_everyone(const Run& run, int& value) {
  if constexpr (k::simgrid_build) {
    k::check_mpi(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  } else {
    k::broadcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, run.wait);
  }
}

void send(char* buffer, double bytes, int to, const Run& run) {
  std::vector<MPI_Request> requests;
  k::start_send(buffer, static_cast<std::size_t>(bytes), MPI_CHAR, to, flow_tag, MPI_COMM_WORLD, requests);
  k::complete_all(requests, run.wait, "MPI_Isend");
}

void receive(char* buffer, double bytes, int from, const Run& run) {
  std::vector<MPI_Request> requests;
  k::start_receive(buffer, static_cast<std::size_t>(bytes), MPI_CHAR, from, flow_tag, MPI_COMM_WORLD, requests);
  k::complete_all(requests, run.wait, "MPI_Irecv");
}

int repetitions(const Run& run, double bytes) { return probe_repetitions(bytes, run.repetitions, run.full_bytes); }

// A communicator of the world ranks for which `member` is true, in rank order; null on the others.
MPI_Comm sub_communicator(int rank, bool member) {
  MPI_Comm sub = MPI_COMM_NULL;
  k::check_mpi(MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank, &sub), "MPI_Comm_split");
  return sub;
}

struct MaxlocPair {  // MPI_DOUBLE_INT
  double value;
  int rank;
};

// The buffers of one collective item on this rank.
struct ItemBuffers {
  k::Buffer<char> send;
  k::Buffer<char> receive;
  std::vector<MaxlocPair> pairs_in, pairs_out;
  k::Layout layout;
};

ItemBuffers buffers_for(const CollectiveItem& item, int me, const Run& run) {
  ItemBuffers b;
  const auto p = static_cast<std::size_t>(item.processes);
  const auto bytes = static_cast<std::size_t>(item.bytes);
  switch (item.pattern) {
    case MessagePattern::broadcast:
      b.send = k::Buffer<char>(bytes, run.compute);
      break;
    case MessagePattern::scatterv:
    case MessagePattern::gatherv: {
      std::vector<std::size_t> counts(p, bytes / p);
      for (std::size_t r = 0; r < bytes % p; ++r) ++counts[r];
      b.layout = k::row_layout(counts, 1);
      b.send = k::Buffer<char>(me == 0 ? bytes : 0, run.compute);  // the root's whole buffer
      b.receive = k::Buffer<char>(counts[static_cast<std::size_t>(me)], run.compute);
      break;
    }
    case MessagePattern::alltoall:
      b.layout = k::row_layout(std::vector<std::size_t>(p, bytes / p), 1);
      b.send = k::Buffer<char>(bytes / p * p, run.compute);
      b.receive = k::Buffer<char>(bytes / p * p, run.compute);
      break;
    case MessagePattern::allreduce:
      b.pairs_in.assign(std::max<std::size_t>(1, bytes / 12), MaxlocPair{1.0 * me, me});
      b.pairs_out.resize(b.pairs_in.size());
      break;
    case MessagePattern::barrier:
    case MessagePattern::send:
      break;
  }
  return b;
}

void call(const CollectiveItem& item, ItemBuffers& b, MPI_Comm comm, const Run& run) {
  const int late = item.processes - 1;
  switch (item.pattern) {
    case MessagePattern::broadcast:
      k::broadcast(b.send.data(), b.send.size(), MPI_CHAR, late, comm, run.wait);
      break;
    case MessagePattern::scatterv:
      k::scatterv(b.send.data(), b.layout, MPI_CHAR, b.receive.data(), 0, comm, run.wait);
      break;
    case MessagePattern::gatherv:
      k::gatherv(b.receive.data(), MPI_CHAR, b.send.data(), b.layout, 0, comm, run.wait);
      break;
    case MessagePattern::alltoall:
      k::alltoallv(b.send.data(), b.layout, b.receive.data(), b.layout, b.layout.counts.front(), MPI_CHAR, comm,
                   run.wait);
      break;
    case MessagePattern::allreduce:
      k::allreduce(b.pairs_in.data(), b.pairs_out.data(), static_cast<int>(b.pairs_in.size()), MPI_DOUBLE_INT,
                   MPI_MAXLOC, comm, run.wait);
      break;
    case MessagePattern::barrier:
      k::barrier(comm, run.wait);
      break;
    case MessagePattern::send:
      break;
  }
}

}  // namespace

bool before_deadline(const Run& run, double deadline) {
  int go = run.rank == 0 && MPI_Wtime() - run.start < deadline ? 1 : 0;
  tell_everyone(run, go);
  return go != 0;
}

std::vector<MessageSample> point_to_point_sweep(const Run& run, int peer, const std::vector<double>& sizes,
                                                const std::vector<std::size_t>& order, double deadline) {
  const bool active = run.rank == 0 || run.rank == peer;
  const double largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  k::Buffer<char> buffer(active ? static_cast<std::size_t>(std::max(largest, 1.0)) : 0, run.compute);
  std::vector<MessageSample> out;
  for (const std::size_t index : order) {
    if (!before_deadline(run, deadline)) break;
    if (!active) continue;
    const double bytes = sizes[index];
    const int timed = repetitions(run, bytes);
    const int warm = bytes <= run.full_bytes ? 1 : 0;
    std::vector<double> times;
    for (int i = 0; i < warm + timed; ++i) {
      if (run.rank == 0) {
        const double start = MPI_Wtime();
        send(buffer.data(), bytes, peer, run);
        receive(buffer.data(), bytes, peer, run);
        if (i >= warm) times.push_back((MPI_Wtime() - start) / 2);
      } else {
        receive(buffer.data(), bytes, 0, run);
        send(buffer.data(), bytes, 0, run);
      }
    }
    if (run.rank == 0) out.push_back({bytes, median(times), timed});
  }
  std::sort(out.begin(), out.end(), [](const MessageSample& a, const MessageSample& b) { return a.bytes < b.bytes; });
  return out;
}

std::vector<SaturationPoint> saturation_flows(const Run& run, const std::vector<std::pair<int, int>>& pairs,
                                              const std::vector<int>& flow_counts, double bytes, double deadline) {
  std::vector<SaturationPoint> out;
  std::vector<double> gathered(run.rank == 0 ? static_cast<std::size_t>(run.size) : 0);
  for (const int flows : flow_counts) {
    if (!before_deadline(run, deadline)) break;
    int sends_to = -1, receives_from = -1;
    for (int i = 0; i < flows; ++i) {
      if (pairs[static_cast<std::size_t>(i)].first == run.rank) sends_to = pairs[static_cast<std::size_t>(i)].second;
      if (pairs[static_cast<std::size_t>(i)].second == run.rank) receives_from = pairs[static_cast<std::size_t>(i)].first;
    }
    k::Buffer<char> buffer(sends_to >= 0 || receives_from >= 0 ? static_cast<std::size_t>(bytes) : 0, run.compute);
    const int timed = repetitions(run, bytes);
    const int warm = bytes <= run.full_bytes ? 1 : 0;
    std::vector<double> times;
    for (int i = 0; i < warm + timed; ++i) {
      std::vector<MPI_Request> requests;
      if (receives_from >= 0)
        k::start_receive(buffer.data(), buffer.size(), MPI_CHAR, receives_from, flow_tag, MPI_COMM_WORLD, requests);
      synchronise(run, MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      double mine = -1;
      if (sends_to >= 0) send(buffer.data(), bytes, sends_to, run);
      if (receives_from >= 0) {
        k::complete_all(requests, run.wait, "MPI_Irecv");
        mine = MPI_Wtime() - start;
      }
      k::check_mpi(MPI_Gather(&mine, 1, MPI_DOUBLE, gathered.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Gather");
      if (run.rank == 0 && i >= warm)
        for (const double t : gathered)
          if (t >= 0) times.push_back(t);
    }
    if (run.rank == 0) {
      const double seconds = std::max(median(times), 1e-12);
      out.push_back({flows, seconds, bytes / seconds / 1e6});
    }
  }
  return out;
}

std::optional<AllToAllPoint> alltoall_among(const Run& run, const std::vector<int>& leaders, double bytes_per_pair,
                                            double deadline) {
  const bool member = std::find(leaders.begin(), leaders.end(), run.rank) != leaders.end();
  MPI_Comm comm = sub_communicator(run.rank, member);
  if (!before_deadline(run, deadline)) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    return std::nullopt;
  }
  const std::size_t n = leaders.size();
  const auto per_pair = static_cast<std::size_t>(bytes_per_pair);
  const double total = static_cast<double>(per_pair * n);
  const int timed = repetitions(run, total);
  const int warm = total <= run.full_bytes ? 1 : 0;
  std::vector<double> times;
  if (comm != MPI_COMM_NULL) {
    const k::Layout layout = k::row_layout(std::vector<std::size_t>(n, per_pair), 1);
    k::Buffer<char> send_buffer(per_pair * n, run.compute), receive_buffer(per_pair * n, run.compute);
    for (int i = 0; i < warm + timed; ++i) {
      synchronise(run, comm);
      const double start = MPI_Wtime();
      k::alltoallv(send_buffer.data(), layout, receive_buffer.data(), layout, per_pair, MPI_CHAR, comm, run.wait);
      const double mine = MPI_Wtime() - start;
      double slowest = 0;
      k::check_mpi(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm), "MPI_Reduce");
      if (i >= warm) times.push_back(slowest);
    }
    MPI_Comm_free(&comm);
  }
  if (run.rank != 0) return AllToAllPoint{};
  const double seconds = std::max(median(times), 1e-12);
  return AllToAllPoint{static_cast<int>(n), static_cast<double>(per_pair), seconds,
                       static_cast<double>(n - 1) * static_cast<double>(per_pair) / seconds / 1e6};
}

std::vector<CollectiveSample> time_collectives(const Run& run, const std::vector<CollectiveItem>& items,
                                               double deadline) {
  // One communicator per process count, made once (each split is a call of every rank).
  std::vector<std::pair<int, MPI_Comm>> communicators;
  for (const CollectiveItem& item : items) {
    if (std::any_of(communicators.begin(), communicators.end(),
                    [&](const auto& c) { return c.first == item.processes; }))
      continue;
    communicators.emplace_back(item.processes, sub_communicator(run.rank, run.rank < item.processes));
  }
  std::vector<CollectiveSample> out;
  for (const CollectiveItem& item : items) {
    if (!before_deadline(run, deadline)) break;
    const MPI_Comm comm = std::find_if(communicators.begin(), communicators.end(), [&](const auto& c) {
                            return c.first == item.processes;
                          })->second;
    if (comm == MPI_COMM_NULL) continue;
    ItemBuffers buffers = buffers_for(item, run.rank, run);
    const int timed = repetitions(run, item.bytes);
    const int warm = item.bytes <= run.full_bytes ? 2 : 0;
    const int late = item.processes - 1;
    std::vector<double> times;
    for (int i = 0; i < warm + timed; ++i) {
      synchronise(run, comm);
      const double start = MPI_Wtime();
      if (run.rank == late) k::idle_for(run.skew_seconds);
      call(item, buffers, comm, run);
      const double mine = MPI_Wtime() - start - run.skew_seconds;
      double slowest = 0;
      k::check_mpi(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm), "MPI_Reduce");
      if (i >= warm) times.push_back(std::max(0.0, slowest));
    }
    if (run.rank == 0) out.push_back({item.pattern, item.processes, item.bytes, median(times), timed});
  }
  for (auto& [p, comm] : communicators)
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  return out;
}

}  // namespace hetscale::commbench
