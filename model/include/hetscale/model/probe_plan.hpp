// What a network probe measures and in which order (hetscale-commbench, docs/twin.md
// "Calibration"): the message sizes of its point-to-point sweep and of its collectives,
// their repetitions, the process counts and flow counts, the pairs of nodes whose flows
// cross the site's groups, and a random order that is the same on every machine. Pure:
// every rank computes the same plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hetscale/model/network_probe.hpp"

namespace hetscale {

/// Log-uniform sizes from 1 byte to `max_bytes`: `per_decade` a decade, each rounded to
/// whole bytes, repeats dropped, `max_bytes` last. Throws Error unless max_bytes >= 1 and
/// per_decade >= 1.
[[nodiscard]] std::vector<double> log_uniform_sizes(double max_bytes, int per_decade);

/// Repetitions of a measurement that moves `bytes`: `most` up to `full_bytes`, then
/// floor(most * full_bytes / bytes), at least 1: the largest messages few repetitions.
[[nodiscard]] int probe_repetitions(double bytes, int most, double full_bytes);

/// A permutation of 0 .. count - 1 drawn from `seed` (Fisher-Yates on SplitMix64): the
/// same order on every machine and compiler.
[[nodiscard]] std::vector<std::size_t> shuffled_order(std::size_t count, std::uint64_t seed);

/// The process counts the collectives are timed at: 2 .. ranks when that is at most 16,
/// else the powers of 2 below ranks, and ranks.
[[nodiscard]] std::vector<int> collective_process_counts(int ranks);

/// The numbers of concurrent flows of the saturation test: 1, 2, 4, ... up to `pairs`,
/// and `pairs`.
[[nodiscard]] std::vector<int> saturation_flow_counts(int pairs);

/// The pairs of nodes (indices into the nodes) whose flows the saturation test adds one by
/// one: floor(n / 2) pairs, node i of an order with node i + n / 2. With every node's
/// site-table group known (`groups[i]`, in the order the groups are first met in
/// `group_order`), the order is by group, so that pairs join different groups where the
/// groups allow it ("groups"); else the nodes' own order ("halves").
struct NodePairs {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::string pairing;
};
[[nodiscard]] NodePairs saturation_pairs(std::size_t nodes, const std::vector<std::string>& groups,
                                         const std::vector<std::string>& group_order);

/// The sizes a collective is timed at over `processes` ranks, up to `max_bytes`: 8, 64,
/// 512, ... (powers of 8 times 8) for broadcast, scatterv and gatherv; the same rounded
/// down to a multiple of `processes`, at least `processes`, for alltoall (a rank's bytes
/// in all, one byte or more to each); 12, 96, ... up to 48 KiB for allreduce (pairs of a
/// double and an int, ge's pivot search); 0 for barrier.
[[nodiscard]] std::vector<double> collective_sizes(MessagePattern pattern, double max_bytes, int processes);

}  // namespace hetscale
