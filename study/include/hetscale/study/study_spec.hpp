// The study spec (TOML, docs/study.md): which experiments a study runs, how many refinement
// rounds, whether one set is equalized and re-run, the what-if sets of the forecasts, the
// twin and the report's title. Every error is a ConfigError at file:line:col.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"

namespace hetscale::study {

struct StudyExperiment {
  std::filesystem::path path;  // the experiment spec, relative paths resolved from the study spec's directory
  jobgen::ExperimentSpec spec;
  SourceLocation where;        // its `spec` value in the study spec
  std::optional<std::uint32_t> twin_rounds;  // its own `twin_rounds`, instead of [twin] rounds
  std::optional<std::uint32_t> twin_nodes;   // its own `twin_nodes`: its twin's largest set, at most [twin] nodes
};

// Equalize the largest set of one experiment from its repeated runs, then run that set again
// with marked and equalized weights in turn.
struct EqualizeSpec {
  bool enabled = false;
  std::string experiment;       // an experiment of the study (its name)
  std::uint32_t repetitions = 2;  // of the re-run, per weight source
  SourceLocation where;
};

// A what-if set of the forecasts: `nodes` nodes, each `speed_of_fastest` times as fast as
// the site's fastest node (by marked speed).
struct WhatIfSet {
  std::uint32_t nodes = 2;
  double speed_of_fastest = 2;
};

struct PredictSpec {
  std::uint32_t doublings = 4;  // forecasts of the next sets beyond the measured ones
  std::vector<WhatIfSet> what_if;
};

/// The most refinement rounds `[twin] rounds` or an experiment's `twin_rounds` may ask for.
inline constexpr std::uint32_t kMaxTwinRounds = 8;

/// When the twin's chain of arrays begins (`[twin] start`): after the measured rounds
/// (their psi table and forecasts), or beside them, as soon as round 0's records exist to
/// calibrate its compute efficiency from.
enum class TwinStart { after, beside };
std::string_view to_string(TwinStart start);

struct StudySpec {
  std::filesystem::path source;
  std::string name;   // names the controller jobs: <name>-controller
  std::string title;  // of the report
  std::vector<StudyExperiment> experiments;
  std::uint32_t max_rounds = 0;  // refinement rounds after the first (each experiment's [refine] may stop it sooner)
  bool replace_unavailable = false;  // round 0's members Slurm reports unavailable swapped, not refused
  // The controller job's --time (a Slurm time): its step collects, plans and submits, and at
  // the end runs the analysis, the forecasts, the twin and the report.
  std::string controller_time_limit = "02:00:00";
  EqualizeSpec equalize;
  PredictSpec predict;
  std::uint32_t twin_nodes = 0;  // 0: no twin
  std::uint32_t twin_rounds = 0;  // refinement rounds of the twin after its first (at most kMaxTwinRounds)
  // The lowest psi expected between the twin's consecutive sets, in (0, 1]: how far the
  // sizes of its first round reach on its larger sets (each experiment's [parameter]
  // psi_floor is for the measured sets).
  double twin_psi_floor = 0.7;
  // The partition of the twin's arrays (`[twin] partition`); empty: each experiment's own
  // [slurm] partition, as its twin.sbatch names it.
  std::string twin_partition;
  TwinStart twin_start = TwinStart::after;
  // The largest set, in nodes, of the twin's first round (`[twin] first_round_nodes`; 0:
  // every set): the larger ones begin one per round, placed from the smaller ones' targets.
  std::uint32_t twin_first_round_nodes = 0;

  [[nodiscard]] const StudyExperiment& experiment(std::string_view experiment_name) const;
};

/// Parses a study spec; relative experiment paths are resolved from `base_dir`. Every
/// experiment spec is read too (its errors name its own file).
StudySpec parse_study_spec(std::string_view text, const std::string& source_name,
                           const std::filesystem::path& base_dir);
StudySpec load_study_spec(const std::filesystem::path& path);

}  // namespace hetscale::study
