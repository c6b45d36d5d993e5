// The generated job scripts: one sbatch array script per machine set and a submit script.
// Output is stable (no times, no absolute paths but the kernels' default directory) so
// that it can be compared with golden files (DESIGN.md style rule 12).
#pragma once

#include <string>

#include "hetscale/jobgen/study.hpp"

namespace hetscale::jobgen {

struct RenderOptions {
  /// Where the bundled kernels (hetscale-mm, ...) are; the script lets HETSCALE_BIN_DIR
  /// override it at run time.
  std::string kernel_dir = "/usr/local/bin";
};

/// "set<k>.sbatch".
std::string set_script_name(const StudySet& set);
/// "hosts/set<k>.txt": one line per task, for sets whose nodes run different task counts.
std::string host_file_name(const StudySet& set);

std::string render_set_script(const Study& study, const StudySet& set, const RenderOptions& options);
std::string render_host_file(const StudySet& set);
std::string render_submit_script(const Study& study);

}  // namespace hetscale::jobgen
