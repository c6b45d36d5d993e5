// One equalization of a set of nodes, as `hetscale equalize` and the study's equalize stage
// run it (docs/science.md section 3): the nodes' speeds and variations (from a CSV file or
// from a set's rank timings), the step 1 and step 2 partitions of the work that keeps every
// node busy `seconds` at step 1, their simulation, the partition file the SPANK plugin
// reads, and the node table and text that report them. The formulas are equalization.hpp's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "hetscale/base/csv.hpp"
#include "hetscale/base/text_table.hpp"
#include "hetscale/model/equalization.hpp"
#include "hetscale/model/node_timing.hpp"
#include "hetscale/model/simulation.hpp"

namespace hetscale {

/// The nodes an equalization partitions work between, in one order throughout.
struct EqualizationNodes {
  std::string source;  // where the figures come from, in words (the partition file's header)
  std::vector<std::string> names;
  std::vector<VariableComputer> computers;
  std::vector<NodeTimingStats> stats;  // from rank timings only; empty from a CSV file
  std::string note;                    // what the user should know about the input
  std::string variation;               // from rank timings: where the variation comes from
  bool from_availability = false;      // from rank timings: availability TH, not the run times
};

/// Checks the columns of a node CSV: node, speed, and exactly one of `variation` (k_i =
/// sigma_T / sqrt(t), in sqrt(seconds)) and `th` (sigma_A / a). True when it is `th`, which
/// needs a correlation time. Throws ConfigError.
bool node_csv_gives_th(const CsvTable& csv);

/// The nodes of a node CSV (node_csv_gives_th); with `th`, k_i =
/// variation_from_heterogeneity(th, correlation_time), correlation_time > 0 (E[L^2]/E[L]
/// of the availability intervals, in seconds). Throws ConfigError for a bad cell, Error
/// when no node is listed.
EqualizationNodes equalization_nodes_from_csv(const CsvTable& csv, const std::string& source,
                                              double correlation_time);

/// The nodes of a set's rank timings (node_timing_stats): check_equalization_input (throws
/// Error, or gives the note), then the variation choose_variation picks from `availability`.
EqualizationNodes equalization_nodes_from_timings(
    const std::string& source, std::vector<NodeTimingStats> stats,
    const std::vector<MeasuredAvailability>& availability);

/// Availability processes that give each node its k_i: mean availability 0.5, TH_i = k_i /
/// sqrt(correlation time). `options.max_interval` is lengthened when needed so that the
/// largest TH stays 0.5, inside what the uniform distribution can draw (said in `note`).
struct EqualizationSimulation {
  std::vector<SimulatedComputer> computers;
  SimulationOptions options;
  std::string note;
};
EqualizationSimulation equalization_simulation(std::span<const VariableComputer> computers,
                                               SimulationOptions options);

/// One partition an equalization stores.
struct EqualizationMethod {
  std::string name;  // as stored: proportional | equalized | equalized_linear
  StochasticPartition partition;
  SimulationResult simulated;  // zero when not simulated
};

/// What an equalization computes. `methods`: step 1 (`proportional`) first, whose simulated
/// tau is the deadline of every risk factor; then `equalized`, step 2 as `method` chooses
/// it (with `linearised`: step 2 by case, then `equalized_linear`, the linearised one). The
/// last method's partition is the one written (`chosen.partition`).
struct EqualizationPlan {
  std::string method;     // case | exact | linearised | optimum (choose_partition)
  double seconds = 0;     // run time at step 1
  double total_work = 0;  // sum of speed x seconds: every node busy `seconds` at step 1
  ChosenPartition chosen;
  std::vector<EqualizationMethod> methods;
};

/// Partitions the work that keeps every node busy `seconds` at step 1 (sigma_T = k sqrt(t)
/// grows slower than t, so the best shares depend on how long the run is); simulates each
/// method when `simulation` is given.
EqualizationPlan plan_equalization(std::span<const VariableComputer> computers, double seconds,
                                   const std::string& method,
                                   const EqualizationSimulation* simulation);

/// The method whose partition is the one written.
const EqualizationMethod& written_method(const EqualizationPlan& plan);

/// One row per node: its speed and variation (and, from rank timings, repetitions, mean and
/// sd of seconds per op), its share at step 1, equalized and step 2, t + sigma_T at steps 1
/// and 2, the case, and the modelled tau of step 1, the equalized partition and step 2.
Table equalization_table(const EqualizationNodes& nodes, const EqualizationPlan& plan);

/// The node table as aligned text, then the case, the share of the equalizing move taken,
/// the modelled taus, the degrees of equalization and the notes, one line each.
std::string equalization_text(const EqualizationNodes& nodes, const EqualizationPlan& plan);

/// The simulated tau, sigma_T and risk factor of every method, and the simulation's note.
std::string simulation_text(const EqualizationPlan& plan, const EqualizationSimulation& simulation);

/// The partition file of the written partition (format_partition, `site` recorded), headed
/// by a comment naming the method and the source.
std::string equalized_partition_file(const EqualizationNodes& nodes, const EqualizationPlan& plan,
                                     const std::string& site);

/// Writes equalized_partition_file, replaced whole, to `output`, or when that is empty to
/// equalized_partition_path(partitions, the nodes in natural order, the caller's uid),
/// where the plugin looks for the caller's jobs: root writes the site's partition, any
/// other user into their own directory (made when missing, make_user_partitions_dir).
/// Returns the path written; empty (nothing written) when both are empty.
std::filesystem::path write_equalized_partition(const EqualizationNodes& nodes,
                                                const EqualizationPlan& plan,
                                                const std::string& site,
                                                const std::filesystem::path& output,
                                                const std::filesystem::path& partitions);

}  // namespace hetscale
