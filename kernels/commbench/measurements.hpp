// hetscale-commbench's measurements, every message sent and waited for as the kernels do
// (common/collectives.hpp, HETSCALE_MPI_WAIT): point to point between two ranks over a
// sweep of sizes, concurrent flows between pairs of nodes and an all-to-all among one rank
// per node, and the kernels' collectives timed as a kernel meets them. Every rank calls
// each function in the same order; the figures are on rank 0. A measurement starts only
// while rank 0 finds the time before its deadline (MPI_Wtime from the run's start), which
// it tells every rank: a probe keeps within its budget whatever the network.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/engine.hpp"
#include "common/mpi_wait.hpp"
#include "hetscale/model/network_probe.hpp"

namespace hetscale::commbench {

struct Run {
  int rank = 0;
  int size = 1;
  kernels::WaitMode wait = kernels::WaitMode::spin;
  kernels::ComputeMode compute = kernels::ComputeMode::real;  // buffers: real, or folded in the twin
  int repetitions = 20;     // of a measurement that moves at most full_bytes
  double full_bytes = 1 << 20;
  double skew_seconds = 1e-3;
  double start = 0;         // MPI_Wtime at the run's start, on rank 0
};

/// Rank 0 says whether it is still before `deadline` (seconds since the run's start).
bool before_deadline(const Run& run, double deadline);

/// One-way times between rank 0 and `peer` at `sizes`, measured in `order` (a permutation
/// of the sizes) until the deadline: per size the median of half round trips, after one
/// untimed round trip for sizes up to full_bytes. By size; empty on other ranks.
std::vector<MessageSample> point_to_point_sweep(const Run& run, int peer, const std::vector<double>& sizes,
                                                const std::vector<std::size_t>& order, double deadline);

/// `flows` of the `pairs` (world ranks: sender, receiver) send `bytes` each at once, after a
/// barrier, for each count in `flow_counts` until the deadline: per count the median time of
/// a flow from the barrier to its receive. Empty on other ranks than 0.
std::vector<SaturationPoint> saturation_flows(const Run& run, const std::vector<std::pair<int, int>>& pairs,
                                              const std::vector<int>& flow_counts, double bytes, double deadline);

/// An all-to-all of `bytes_per_pair` among `leaders` (world ranks, rank 0 first), the
/// kernels' alltoallv: the median of the slowest rank's time. None when the deadline has
/// passed; on other ranks than 0 a value that means nothing.
std::optional<AllToAllPoint> alltoall_among(const Run& run, const std::vector<int>& leaders, double bytes_per_pair,
                                            double deadline);

/// One collective to time: `pattern` on the first `processes` ranks, of `bytes`
/// (network_probe.hpp says what the size means for each pattern).
struct CollectiveItem {
  MessagePattern pattern = MessagePattern::barrier;
  int processes = 2;
  double bytes = 0;
};

/// Times `items` in order until the deadline, each as a kernel meets it: the last rank of
/// the `processes` arrives skew_seconds after the others (the broadcast's root; rank 0 is
/// the root of scatterv and gatherv, as in the kernels), and the time is from its arrival
/// to the end of the call on the slowest rank; per item the median over its repetitions,
/// after two untimed calls for items that move at most full_bytes. An all-reduce of B
/// bytes is B / 12 (value, rank) pairs under MPI_MAXLOC, ge's pivot search. The items
/// measured, on rank 0.
std::vector<CollectiveSample> time_collectives(const Run& run, const std::vector<CollectiveItem>& items,
                                               double deadline);

}  // namespace hetscale::commbench
