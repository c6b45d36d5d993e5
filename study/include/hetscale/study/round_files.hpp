// A round's files as hetscale jobgen and hetscale study write them: the scripts, submit
// script and plan of jobgen::study_files, followed by copies of the round's inputs.
#pragma once

#include <string>
#include <vector>

#include "hetscale/jobgen/study.hpp"
#include "hetscale/jobgen/study_files.hpp"

namespace hetscale::study {

/// Whether any set of the round has sizes to run (an array to submit).
bool has_jobs(const jobgen::Study& round);

/// The round's generated files (created now, running the kernels of `kernel_dir`), then
/// `inputs` (the spec, the site table: copies that make the directory self-contained).
std::vector<jobgen::GeneratedFile> round_files(const jobgen::Study& round, const std::string& kernel_dir,
                                               const std::vector<jobgen::GeneratedFile>& inputs);

}  // namespace hetscale::study
