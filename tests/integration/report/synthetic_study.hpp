// A small synthetic study loaded the way a real one is: plan files and run records through
// `hetscale collect`, `hetscale analyze` per experiment, then the rows that `hetscale
// equalize --db` and `hetscale predict` would write (partitions, predictions), by SQL.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hetscale::test {

/// Runs the `hetscale` CLI in-process; returns its exit code, output in out/err.
int hetscale_cli(std::vector<std::string> args, std::string& out, std::string& err);

/// The two experiments loaded by load_synthetic_study.
inline const std::vector<std::string> kSyntheticExperiments = {"mm-small", "mm-steep"};

/// Loads both experiments (two sets each; site with a degraded and an excluded node; runs
/// repeated twice with per-host noise, so TH and SH exist; equalized and marked runs of
/// one configuration) and analyzes them at E_s = 0.5. `scratch` holds the input files.
/// Throws std::runtime_error naming the step that failed.
void load_synthetic_study(const std::string& db_uri, const std::filesystem::path& scratch);

/// Adds a proportional and an equalized partition of mm-small's set 1, and a forecast
/// (measured sets, a doubling, a what-if set) for each experiment.
void insert_partitions_and_predictions(const std::string& db_uri);

}  // namespace hetscale::test
