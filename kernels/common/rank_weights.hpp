// Each rank's share of the work: from --weights or --weights-file, else from every rank's
// HETSCALE_WEIGHT (gathered with MPI_Allgather), else equal weights.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/mpi_session.hpp"

namespace hetscale::kernels {

/// What one rank's environment says; `*_invalid` when a variable is set but unusable.
struct RankEnvironment {
  std::optional<double> weight;  // HETSCALE_WEIGHT
  bool weight_invalid = false;
  std::optional<double> marked_speed;  // HETSCALE_MARKED_SPEED
  bool speed_invalid = false;
};

struct RankWeights {
  std::vector<double> weights;        // one per rank, sum 1
  std::vector<double> marked_speeds;  // one per rank, 0 when unknown
  double system_speed = 0;            // C of the step, 0 when unknown
  std::string source;                 // marked | equalized | file | equal | option
  std::string note;                   // printed once by rank 0 when not empty
  std::optional<std::string> digest;  // the run record's weights_digest (combine_weights_digests)
};

/// Sets `weights.digest` from every rank's HETSCALE_WEIGHTS_DIGEST ("" = none) and, when
/// the ranks differ, adds a warning to its note.
void with_digest(RankWeights& weights, std::span<const std::string> by_rank);

/// Reads the two per-rank variables (null = unset).
[[nodiscard]] RankEnvironment read_rank_environment(const char* weight, const char* marked_speed);

/// The decision, from every rank's environment, the option and rank 0's
/// HETSCALE_WEIGHTS_SOURCE / HETSCALE_SYSTEM_SPEED (null = unset). Throws Error.
[[nodiscard]] RankWeights choose_weights(std::span<const RankEnvironment> ranks,
                                         const std::optional<std::string>& option,
                                         const char* weights_source, const char* system_speed);

/// A step that asked the SPANK plugin for weights (HETSCALE_WEIGHTS set, not `off`) and got
/// none (no HETSCALE_WEIGHTS_SOURCE: the plugin did not run on the node, e.g. it is built
/// for another Slurm release and Slurm skipped it) is an error, never an unweighted run.
/// Null = unset. Throws Error.
void check_request_answered(const char* request, const char* weights_source);

/// True when a --weights value names a partition file (it contains a '/', as for the
/// SPANK plugin: `./part.toml`), not `equal` or a list of numbers.
[[nodiscard]] bool names_partition_file(const std::string& option);

/// What the command line asks for.
struct WeightsChoice {
  std::optional<std::string> weights;       // --weights
  std::optional<std::string> weights_file;  // --weights-file
  std::optional<std::string> site;          // --site, else HETSCALE_SITE
};

/// Collective: gathers every rank's environment and decides the same on every rank. A
/// partition file (docs/partition-file.md; --weights-file, or --weights with a '/') is
/// read by rank 0; by-node shares are split between the ranks on that host. With a site
/// table, `--weights marked` gives the SPANK plugin's marked weights for the ranks' hosts
/// (one processor per rank), and a partition file keeps the marked speeds of the table.
/// Hosts are engine.hpp's rank_host_name (the simulated host in the SimGrid build).
[[nodiscard]] RankWeights resolve_weights(const MpiSession& mpi, const WeightsChoice& choice);

}  // namespace hetscale::kernels
