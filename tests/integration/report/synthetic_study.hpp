// A small synthetic study loaded the way a real one is: plan files and run records through
// `hetscale collect`, `hetscale analyze` per experiment, then the rows that `hetscale
// equalize --db` and `hetscale predict` would write (partitions, predictions), by SQL.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hetscale::test {

/// Runs the `hetscale` CLI in-process; returns its exit code, output in out/err.
int hetscale_cli(std::vector<std::string> args, std::string& out, std::string& err);

/// The configuration of both experiments that also has runs with equalized weights, and
/// the factor of their run time (equalization saved 7 %).
inline constexpr int kEqualizedSet = 1;
inline constexpr double kEqualizedParameter = 160;
inline constexpr double kEqualizedTimeFactor = 0.93;

/// The two experiments loaded by load_synthetic_study.
inline const std::vector<std::string> kSyntheticExperiments = {"mm-small", "mm-steep"};

/// Loads both experiments (two sets each; site with a degraded and an excluded node; runs
/// repeated twice with per-host noise, so TH and SH exist; equalized and marked runs of
/// one configuration) and analyzes them at E_s = 0.5. `scratch` holds the input files.
/// Throws std::runtime_error naming the step that failed.
void load_synthetic_study(const std::string& db_uri, const std::filesystem::path& scratch);

/// Adds a proportional and an equalized partition of mm-small's set 1 and the availability
/// of every node (insert_partitions), and a forecast (measured sets, a doubling, a what-if
/// set) for each experiment (insert_predictions).
void insert_partitions_and_predictions(const std::string& db_uri);
void insert_partitions(const std::string& db_uri);
void insert_predictions(const std::string& db_uri);

/// The twin of mm-small loaded as `hetscale twin study` results are: experiment
/// "mm-small-twin", every run a twin run (engine simgrid, a platform hash, no Slurm ids, no
/// plan), analyzed at E_s = 0.5. Its sets 0 and 1 are mm-small's (2 and 4 nodes) with one
/// more parameter value in set 1; sets 2 to `sets - 1` (8, 16, ... nodes) lie beyond the
/// machine.
void load_twin_study(const std::string& db_uri, const std::filesystem::path& scratch,
                     int sets = 4);

/// The nodes of the site grown as the twin grows it (twin/site_growth.hpp).
inline constexpr int kGrownNodes = 1024;

/// A study for capacity planning, as a main job leaves it: load_synthetic_study with its
/// partitions, the plans' site grown to kGrownNodes nodes (stored as site "example-grown"),
/// mm-small's twin on sets of 2 to kGrownNodes nodes, and `hetscale predict` of both
/// experiments at E_s 0.5 with doublings to 1024 nodes and two what-if sets.
void load_capacity_study(const std::string& db_uri, const std::filesystem::path& scratch);

/// E_s of one user's runs of set 0 (2 nodes, 100 Mflops) by problem size N.
using EfficiencyCurve = std::map<double, double>;

/// Collects the experiment "mm-scaling" (the fixture plan mm-small, renamed) as the user of
/// `user_uri` (many users in one database: each collects their own): one run of set 0 per
/// size of `curve`, with that E_s; `serial` numbers their Slurm jobs and is advanced.
/// `scratch` holds the input files. Throws std::runtime_error when collect fails.
// The site of the mm-small plan fixture, stored in `db_uri` as the administrator does
// (`hetscale groups --db`): writers' plans name it (migration 13).
void store_mm_site(const std::string& db_uri);

void collect_mm_scaling(const std::string& user_uri, const EfficiencyCurve& curve, int& serial,
                        const std::filesystem::path& scratch);

/// Nodes of set k in both experiments (2, 4, 8, 16) and their marked speeds.
int synthetic_set_nodes(int set_index);
double synthetic_set_speed(int set_index);

/// E_s of the synthetic runs: mm-small's, mm-steep's and mm-small-twin's at N on p nodes.
double synthetic_efficiency(const std::string& experiment, double n, int nodes);

}  // namespace hetscale::test
