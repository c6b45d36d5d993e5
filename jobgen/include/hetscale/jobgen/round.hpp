// A planned round of one experiment: the experiment spec applied to a site table (round 0)
// or refined from the runs of the rounds before. Machine sets, who runs how many tasks
// where, the marked speed of each set and its problem sizes. Everything the scripts and
// the plan file are rendered from.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/jobgen/time_limit.hpp"
#include "hetscale/model/machine_sets.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale::jobgen {

struct SetMember {
  std::string node;
  std::string group;
  double speed_per_processor = 0;  // the node's per-processor marked speed
  std::uint32_t tasks = 1;         // MPI ranks on this node (one per processor used)
  std::uint32_t cpus_per_task = 1; // the node's processors shared among its ranks

  /// The node's share of C: per-processor speed x processors used.
  [[nodiscard]] double marked_speed() const { return speed_per_processor * tasks; }
};

struct RoundSet {
  MachineSet set;                  // marked_speed is C over the processors actually used
  std::vector<SetMember> members;  // in set order
  std::vector<double> parameter_values;  // ascending; array task i runs value i
  // Per value, the repetitions array task i runs; empty: every repetition of the spec
  // (only a resubmitted round runs fewer).
  std::vector<std::vector<std::uint32_t>> repetitions;
  SetTimeLimit time_limit;               // of each array task

  /// The same task count on every node (then --ntasks-per-node says it all).
  [[nodiscard]] bool uniform_tasks() const;
  [[nodiscard]] std::uint32_t total_tasks() const;
};

struct Round {
  ExperimentSpec spec;
  SiteTable site;        // restricted to the spec's `nodes` when given
  std::vector<RoundSet> sets;
  std::uint32_t number = 0;  // 0: the first round, k: the k-th refinement round
  // The study's token (hetscale/site/study_token.hpp), the same in every round of a study:
  // part of its array job names (array_job_name). Empty in a round of a plan without one
  // (an older jobgen's) and in the twin's rounds, whose arrays are no sets' arrays.
  std::string study_token;
};

/// Whether any set of the round has sizes to run (an array to submit).
bool has_jobs(const Round& round);

/// The repetitions array task `value_index` of `set` runs: the set's list for that size
/// when it has lists (a round that adds repetitions, or a resubmitted one), else every
/// repetition of the spec, 0 to repetitions - 1.
std::vector<std::uint32_t> task_repetitions(const Round& round, const RoundSet& set, std::size_t value_index);

/// The most repetitions any array task of `set` runs (what its time limit covers).
std::uint32_t most_task_repetitions(const Round& round, const RoundSet& set);

/// Round 0 of the study whose token is `study_token` (new_study_token() for a new study;
/// empty for the twin's rounds): the spec applied to the site. Throws Error for a token that
/// is neither empty nor a study token, and ConfigError at the spec's key for a set larger
/// than the eligible nodes, a node the site table does not know, more tasks per node than a
/// node has processors, or sets that cannot be formed.
Round plan_round(const ExperimentSpec& spec, const SiteTable& site, const std::string& study_token);

/// The round with each node named in `replacements` swapped for its replacement in every
/// set (so the sets stay nested), and the members, C and sizes that follow from the new
/// nodes; its number and study token unchanged. The replacements must be nodes of the
/// round's site of the same group.
Round with_replaced_nodes(const Round& round, const std::map<std::string, std::string>& replacements);

}  // namespace hetscale::jobgen
