// An experiment as the database holds it (docs/schema.md): the plan's fields and machine
// sets, its latest round (spec text, refine settings, plan file), and its collected runs
// with the marked speed and unit the run_efficiency view resolves. Read by `hetscale
// jobgen --refine --db` and, for the refine tolerance, by `hetscale analyze`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

struct StoredSet {
  int index = 0;
  int node_count = 0;
  double marked_speed = 0;
};

/// One round's row of hetscale.plan_rounds (plan files with a round number).
struct StoredRound {
  int round = 0;
  std::optional<std::string> spec_path;  // absent when the plan carried no spec
  std::optional<std::string> spec_text;
  std::optional<double> refine_tolerance;  // absent when the plan carried no [refine]
  std::string plan;                        // the plan file's JSON
  std::optional<std::string> plan_created;  // the plan's creation time, ISO 8601 UTC
};

struct StoredExperiment {
  std::string name;
  std::string workload;   // empty when no plan was loaded
  std::string parameter;  // empty when no plan was loaded
  std::optional<double> target_efficiency;
  std::vector<StoredSet> sets;              // ascending index
  std::optional<StoredRound> latest_round;  // the highest round; none from older plans
  // The rounds of the current study, ascending: its latest round 0 and every round planned
  // since (a study planned again under the same name starts again from round 0).
  std::vector<StoredRound> rounds;
};

struct StoredRun {
  int set_index = 0;
  std::optional<double> parameter;  // the experiment's parameter in the run's parameters
  int repetition = 0;
  double work = 0;
  double wall_seconds = 0;
  std::optional<double> marked_speed;  // the run's C, or its set's from the plan
  std::string speed_unit;              // the run's, or the site's; empty if neither
  std::string source;                  // "file:line" it was collected from
};

/// The target speed-efficiency the experiment's plan gives (the spec's target_efficiency);
/// throws Error when the database does not know the experiment or has no plan of it.
double planned_target(pg::Connection& conn, const std::string& name);

/// The experiment named `name`, or nothing when the database does not know it.
std::optional<StoredExperiment> read_stored_experiment(pg::Connection& conn,
                                                       const std::string& name);

/// Every experiment's name, sorted, once however many users have it (for "known: ..."
/// messages).
std::vector<std::string> experiment_names(pg::Connection& conn);

/// Its runs that belong to a machine set, in the order they were collected from their
/// files (source file, then line). Throws pg::DbError.
std::vector<StoredRun> read_stored_runs(pg::Connection& conn, const std::string& name);

/// An experiment and its runs as the database holds them at one moment.
struct ExperimentSnapshot {
  std::optional<StoredExperiment> experiment;  // none: not in the database
  std::vector<StoredRun> runs;                 // read_stored_runs
  std::vector<std::string> known;              // experiment_names, when `experiment` is none
};

/// The experiment named `name` with its runs, read in a snapshot transaction of its own on
/// `conn` (plan and runs of one moment, even while a collector loads). Throws pg::DbError.
ExperimentSnapshot read_experiment_snapshot(pg::Connection& conn, const std::string& name);

}  // namespace hetscale::collector
