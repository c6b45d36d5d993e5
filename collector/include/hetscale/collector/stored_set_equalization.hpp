// The equalization of a stored machine set (`hetscale equalize --db`, the study's equalize
// stage): the nodes' speeds and spreads read from one configuration of the set's rank
// timings and their availability in one snapshot, the partitions computed and simulated
// (set_equalization.hpp), the partition file written and every partition stored in
// hetscale.partitions in one transaction.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/partitions.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/collector/set_equalization.hpp"

namespace hetscale::collector {

struct EqualizeSetOptions {
  std::string experiment;
  int set_index = 0;
  std::optional<double> parameter;  // the runs' parameter value; none: the most repeated
  double seconds = 0;               // expected run time with proportional weights (> 0)
  std::string method = "case";      // choose_partition's: case | exact | linearised | optimum
  std::string site;                 // recorded in the partition file
  std::string output;               // write the partition file here...
  std::string partitions;           // ...or <partitions>/<node list>.toml; neither: none
  double interval = 1;              // simulated availability intervals uniform in [0, this] s
  std::uint64_t seed = 1;
  std::size_t repetitions = 1000;  // of the simulation
};

/// What equalize_stored_set computed, wrote and stored.
struct EqualizedSet {
  SetTimings timings;
  EqualizationNodes nodes;
  EqualizationSimulation simulation;
  EqualizationPlan plan;
  std::vector<long long> partition_ids;  // hetscale.partitions, in the order of plan.methods
  std::string file;                      // the partition file written; empty when none
};

/// Reads the set's timings (load_set_timings) and availability in one snapshot, plans and
/// simulates the partitions, writes the partition file (write_equalized_partition), then
/// stores every method's partition and shares in one transaction; the written one names
/// the file. Throws Error (an unknown experiment, a set without runs, an unmeasured
/// parameter value, inputs the equalization cannot use) or pg::DbError.
EqualizedSet equalize_stored_set(pg::Connection& conn, const EqualizeSetOptions& options);

/// `hetscale equalize --db --format table`: the configuration and the variation, the node
/// table and its summary, the simulation and the stored partition ids.
std::string equalized_set_text(const EqualizedSet& set);

/// `hetscale equalize --db --format json`: source, parameter, runs, choice, variation,
/// note, case, the node table (table_json) and the stored methods with their figures.
nlohmann::json equalized_set_json(const EqualizedSet& set);

}  // namespace hetscale::collector
