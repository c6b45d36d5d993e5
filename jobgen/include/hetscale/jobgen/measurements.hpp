// The measured speed-efficiencies of an experiment's rounds, per machine set: from the run
// records their array tasks wrote (DIR/records/*.jsonl, `--refine --from`) or from the runs
// collected into the database (`--refine --db`, read by the caller). Both go through measured_points,
// so that the two give the same points for the same runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/jobgen/round.hpp"
#include "hetscale/model/efficiency_fit.hpp"

namespace hetscale::jobgen {

/// One run of the experiment, as a record or the database holds it.
struct MeasuredRun {
  std::size_t set_index = 0;
  double parameter = 0;
  double work = 0;
  double wall_seconds = 0;
  std::optional<double> marked_speed;  // C of the run; absent or 0: the plan's C of its set
  std::string speed_unit;              // empty: the site's
  std::string source;                  // "file:line", for messages
  std::uint32_t repetition = 0;        // HETSCALE_REPETITION of the run
};

/// (parameter, E_s) per set index, in the order of `runs`. E_s = W / (T C), with C
/// converted from the speed unit. Throws Error "source: message" for a run of a set the
/// round does not have or with a work or time that is not positive.
std::map<std::size_t, std::vector<EfficiencyPoint>> measured_points(const std::vector<MeasuredRun>& runs,
                                                                    const Round& round);

/// Per set index and size, the first repetition number no run of `runs` has at that size
/// (the largest plus one): where repetitions a refinement adds are numbered from.
std::map<std::size_t, std::map<double, std::uint32_t>> next_repetitions(const std::vector<MeasuredRun>& runs);

/// The runs of the round's experiment in records_dir/*.jsonl, files in name order.
/// Records of other experiments are ignored. Throws Error "file:line: message" for a
/// line that is not a usable record.
std::vector<MeasuredRun> read_record_runs(const std::filesystem::path& records_dir, const Round& round);

/// measured_points(read_record_runs(records_dir, round), round).
std::map<std::size_t, std::vector<EfficiencyPoint>> read_measurements(const std::filesystem::path& records_dir,
                                                                      const Round& round);

}  // namespace hetscale::jobgen
