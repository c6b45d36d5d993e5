// Everything `hetscale jobgen` writes for a round into its directory, and writing it all or
// nothing.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/site/round_plan.hpp"

namespace hetscale::jobgen {

struct GeneratedFile {
  std::filesystem::path path;  // relative to the round's directory
  std::string content;
  bool executable = false;
  bool settings = false;  // holds settings (a copy of a spec): written 0600, not 0644
};

/// The copy of a spec that a round's directory keeps (experiment.toml, the twin's spec):
/// its text without database passwords (remove_connection_passwords, base/redaction.hpp),
/// written 0600.
GeneratedFile spec_copy(std::filesystem::path path, const std::string& text);

/// The round as the plan file records it (docs/plan-file.md; written with the site library's
/// to_json, read by the collector), with the spec's text and [refine] settings, the
/// round's number and the study's token. `created` is the ISO 8601 UTC time to record.
RoundPlan plan_of_round(const Round& round, const std::string& created);

/// The round a plan records, back: its site, sets, members (tasks per node as the plan's
/// `processors`), parameter values, number and study token, with `spec` (the one the plan
/// was made from). plan_of_round(round_from_plan(spec, plan), created) gives the plan
/// again. Throws Error when the plan is not of the spec's experiment.
Round round_from_plan(const ExperimentSpec& spec, const RoundPlan& plan);

/// set<k>.sbatch, hosts/set<k>.txt where needed, submit.sh and plan.json.
std::vector<GeneratedFile> round_files(const Round& round, const RenderOptions& options, const std::string& created);

/// Writes the files into `dir` all at once: into a temporary sibling directory first,
/// renamed to `dir` at the end, so that a failure leaves nothing behind. `dir` must not
/// exist or be empty. Also creates the empty records/ and logs/ folders. Throws Error.
void write_round_directory(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files);

}  // namespace hetscale::jobgen
