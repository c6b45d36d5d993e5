// The time limit of each machine set's array tasks (`#SBATCH --time`). A `[slurm]
// time_limit` in the spec is one fixed limit for every set; without it each set's limit
// is estimated: from the work of its largest size, its marked speed and the target
// speed-efficiency (T = W / (C E_target): E_s = W / (T C) solved for T), or in a refinement round
// from the set's measured runs scaled by the work. docs/experiment-spec.md, "Time limits".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale::jobgen {

struct Round;
struct RoundSet;
struct MeasuredRun;

/// How an estimate becomes a limit: one array task runs every repetition of its size, each
/// once per weights of [slurm] weights, so
/// limit = ceil_minutes(T x repetitions x weights x safety_factor + startup_seconds), at least
/// floor_seconds, at most the partition's MaxTime when known.
struct TimeLimitRule {
  double safety_factor = 2;
  double startup_seconds = 60;       // srun, MPI start-up, reading the input
  std::uint64_t floor_seconds = 300;
  std::uint64_t fallback_seconds = 1800;  // when the site's speed unit gives no seconds
};
inline constexpr TimeLimitRule time_limit_rule{};

struct SetTimeLimit {
  std::string slurm_time;  // the --time value: the spec's text, or "H:MM:SS" / "D-HH:MM:SS"
  std::uint64_t seconds = 0;
  std::string basis;       // how it was found, for the script's header
};

/// The spec's fixed limit when it gives one, else the estimate from the set's work.
SetTimeLimit planned_time_limit(const Round& round, const RoundSet& set);

/// The estimate from the largest size of the set: T = W(N_max) / (C E_target), C in base
/// units of the site's speed unit.
SetTimeLimit estimated_time_limit(const Round& round, const RoundSet& set);

/// The estimate from the set's measured runs (any round): the run whose work is closest to
/// W(N_max) of the set (in ratio; the longer of equals), its time scaled by
/// W(N_max) / W(run). Nothing when the set has no runs.
std::optional<SetTimeLimit> measured_time_limit(const Round& round, const RoundSet& set,
                                                const std::vector<MeasuredRun>& runs);

/// For a refinement round: every set with jobs gets its measured limit (the planned one
/// when it has no runs), unless the spec fixes the limit.
void apply_measured_time_limits(Round& round, const std::vector<MeasuredRun>& runs);

/// Caps every estimated limit at the partition's MaxTime (`max_seconds`), saying so in
/// its basis; a fixed limit is left as the spec gives it.
void cap_time_limits(Round& round, std::uint64_t max_seconds, const std::string& partition);

}  // namespace hetscale::jobgen
