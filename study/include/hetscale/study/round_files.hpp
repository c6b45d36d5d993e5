// A round's files as hetscale jobgen and hetscale study write them: the scripts, submit
// script and plan of jobgen::study_files, followed by copies of the round's inputs.
#pragma once

#include <string>
#include <vector>

#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"

namespace hetscale::study {

/// The round's generated files (created now, running the kernels of `kernel_dir`), then
/// `inputs` (the spec, the site table: copies that make the directory self-contained).
std::vector<jobgen::GeneratedFile> round_files(const jobgen::Round& round, const std::string& kernel_dir,
                                               const std::vector<jobgen::GeneratedFile>& inputs);

}  // namespace hetscale::study
