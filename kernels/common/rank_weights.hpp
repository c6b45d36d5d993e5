// Each rank's share of the work: from --weights, else from every rank's HETSCALE_WEIGHT
// (DESIGN.md 3.3, gathered with MPI_Allgather), else equal weights.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/mpi_session.hpp"

namespace hetscale::kernels {

/// What one rank's environment says; `*_invalid` when a variable is set but unusable.
struct RankEnvironment {
  std::optional<double> weight;        // HETSCALE_WEIGHT
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
};

/// Reads the two per-rank variables (null = unset).
[[nodiscard]] RankEnvironment read_rank_environment(const char* weight, const char* marked_speed);

/// The decision, from every rank's environment, the option and rank 0's
/// HETSCALE_WEIGHTS_SOURCE / HETSCALE_SYSTEM_SPEED (null = unset). Throws Error.
[[nodiscard]] RankWeights choose_weights(std::span<const RankEnvironment> ranks,
                                         const std::optional<std::string>& option,
                                         const char* weights_source, const char* system_speed);

/// Collective: gathers every rank's environment and decides the same on every rank.
[[nodiscard]] RankWeights resolve_weights(const MpiSession& mpi, const std::optional<std::string>& option);

}  // namespace hetscale::kernels
