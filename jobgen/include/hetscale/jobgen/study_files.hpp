// Everything `hetscale jobgen` writes for a study, and writing it all or nothing.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/jobgen/study.hpp"
#include "hetscale/site/study_plan.hpp"

namespace hetscale::jobgen {

struct GeneratedFile {
  std::filesystem::path path;  // relative to the study directory
  std::string content;
  bool executable = false;
};

/// The study as the plan file records it (docs/plan-file.md; written with the site library's
/// to_json, read by the collector), with the spec's text and [refine] settings and the
/// study's round. `created` is the ISO 8601 UTC time to record.
StudyPlan plan_of_study(const Study& study, const std::string& created);

/// The study a plan records, back: its site, sets, members (tasks per node as the plan's
/// `processors`), parameter values and round, with `spec` (the one the plan was made
/// from). plan_of_study(study_from_plan(spec, plan), created) gives the plan again. Throws
/// Error when the plan is not of the spec's experiment.
Study study_from_plan(const ExperimentSpec& spec, const StudyPlan& plan);

/// set<k>.sbatch, hosts/set<k>.txt where needed, submit.sh and plan.json.
std::vector<GeneratedFile> study_files(const Study& study, const RenderOptions& options, const std::string& created);

/// Writes the files into `dir` all at once: into a temporary sibling directory first,
/// renamed to `dir` at the end, so that a failure leaves nothing behind. `dir` must not
/// exist or be empty. Also creates the empty records/ and logs/ folders. Throws Error.
void write_study(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files);

}  // namespace hetscale::jobgen
