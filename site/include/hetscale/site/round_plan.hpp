// The plan file (docs/plan-file.md): what `hetscale jobgen` decided for one round of an
// experiment (site, machine sets, parameter values), and what `jobgen --refine --db` needs
// to plan the next round from the database alone (spec text, refine settings, round number). The
// collector stores it; `hetscale analyze` reads the experiment's parameter and target from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/site/machine_set.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

inline constexpr int round_plan_schema = 1;

/// The experiment spec the plan was made from, as written (docs/experiment-spec.md).
struct PlanSpec {
  std::string path;  // where jobgen read it, for messages
  std::string text;  // the whole TOML text
};

/// The spec's [refine] settings (also in the text; here for readers without a TOML parser).
struct PlanRefine {
  std::vector<double> steps;  // relative, ascending, each in (0, 1)
  double tolerance = 0;       // in (0, 1): reached when |E_s - target| <= tolerance x target
  std::uint32_t max_rounds = 0;
  // The spec's precision (relative half-width of the required parameter's interval) and its
  // budget of runs per set; both absent when the spec gives no precision.
  std::optional<double> precision{};
  std::optional<std::uint32_t> max_runs_per_set{};
};

struct PlanExperiment {
  std::string name;                  // unique key of the experiment in the database
  std::string code;                  // kernel name ("mm") or the user's command line
  std::string workload;              // formula as given, e.g. "2*N^3" or "mm"
  std::string parameter;             // the parameter that grows, e.g. "N"
  double target_efficiency = 0;      // target E_s, in (0, 1]
  std::optional<PlanSpec> spec;      // absent in plans of jobgens before round numbers
  std::optional<PlanRefine> refine;  // likewise
};

/// The site the plan was made for: its identity, and the groups and nodes (with marked
/// speeds) as they were when the plan was written.
struct PlanSite {
  std::string name;
  std::string speed_unit;  // unit of every marked speed in the plan
  std::string benchmark;
  std::vector<Group> groups;  // `where` is not stored
  std::vector<Node> nodes;    // host lists expanded; `where` is not stored
};

struct PlannedSet {
  MachineSet set;                        // index, nodes, group counts, marked speed C
  std::vector<double> parameter_values;  // values of the parameter to run on this set
  // Per value, the repetitions its array task runs (ascending); empty: every repetition of
  // the spec (a refinement round that adds repetitions, or a resubmitted round, lists them).
  std::vector<std::vector<std::uint32_t>> repetitions{};
};

struct RoundPlan {
  int schema = round_plan_schema;
  std::string created;                 // ISO 8601 UTC time the plan was written
  std::optional<std::uint32_t> round;  // 0: the first round, k: the k-th refinement; absent
                                       // in plans of older jobgens
  std::optional<std::string> study_token;  // the study's (site/study_token.hpp), in its array
                                           // job names; absent in plans of older jobgens and
                                           // of the twin's rounds
  PlanExperiment experiment;
  PlanSite site;
  std::vector<PlannedSet> machine_sets;  // index i at position i
};

/// The plan's JSON document (stable keys, see docs/plan-file.md).
nlohmann::json to_json(const RoundPlan& plan);

/// Validates and converts a parsed document; throws Error naming the field, e.g.
/// "field 'machine_sets[1].marked_speed' must be a positive number".
RoundPlan round_plan_from_json(const nlohmann::json& document);

/// Parses plan text; throws ConfigError "<source>[:line:col]: <message>".
RoundPlan parse_round_plan(std::string_view text, const std::string& source_name);
/// Reads and parses a plan file; an unreadable file is a ConfigError too.
RoundPlan load_round_plan(const std::filesystem::path& file);

/// True when a parsed JSON document looks like a plan file (has "machine_sets"), so
/// that the collector can tell plans from run records.
bool is_round_plan(const nlohmann::json& document);

}  // namespace hetscale
