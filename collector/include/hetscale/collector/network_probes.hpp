// Network probes in the database (docs/schema.md, "network_probes"): hetscale-commbench's
// output files (*.commbench.json) loaded by `hetscale collect`, one row each, and read
// back by experiment or site, by process count, for the forecasts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "hetscale/model/network_probe.hpp"

namespace hetscale::collector {

/// The ending of a probe file's name: `collect` loads the files it finds that end so as
/// probes (any other *.json as a plan file).
inline constexpr std::string_view probe_file_ending = ".commbench.json";

/// Whether `path` names a probe file.
[[nodiscard]] bool is_probe_file(const std::filesystem::path& path);

/// A probe file as read: its text (whose SHA-256 is the probe's key) and its figures.
struct ProbeFile {
  std::string source;
  std::string text;
  NetworkProbe probe;
};

/// Reads a probe file. Throws Error naming it when it cannot be read, is no
/// hetscale-commbench output, or has no probe (an output written before the probe's keys).
ProbeFile read_probe_file(const std::filesystem::path& path);

/// Stores `file` under the current database user, in its own transaction: its experiment
/// (when it names one) must be in the database (the user's own, else the only one of that
/// name). Returns 1 when the row was added, 0 when the same file was stored before. Throws
/// Error naming the file when the experiment is missing or not the user's.
long long load_probe(pg::Connection& conn, const ProbeFile& file);

/// A probe as stored.
struct StoredProbe {
  long long probe_id = 0;
  std::string experiment;  // the experiment it names, "" for a probe of the site
  std::string site;
  std::string engine;
  std::optional<int> machine_set;
  std::vector<std::string> nodes;
  int processes = 0;
  std::string measured_at;  // ISO 8601 as PostgreSQL prints it, "" when unknown
  std::string source_file;
  NetworkProbe probe;
};

/// The probes of experiment `name` (found as find_experiment finds it): those that name
/// it, and those of its site that name no experiment, were run by its runs' engine
/// (simgrid for a twin experiment, else slurm or mpirun) and whose nodes are those of one
/// of its machine sets. By process count, the latest first within a count. Throws Error
/// when the experiment is not in the database.
std::vector<StoredProbe> experiment_probes(pg::Connection& conn, const std::string& name);

/// Every probe of site `site` (naming an experiment or not), of `engine` when given; by
/// process count, the latest first within a count.
std::vector<StoredProbe> site_probes(pg::Connection& conn, const std::string& site,
                                     const std::optional<std::string>& engine = std::nullopt);

/// The latest probe measured on `processes` ranks among `probes`, or none.
[[nodiscard]] const StoredProbe* probe_for_processes(const std::vector<StoredProbe>& probes, int processes);

}  // namespace hetscale::collector
