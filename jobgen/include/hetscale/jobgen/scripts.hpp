// The generated job scripts: one sbatch array script per machine set and a submit script.
// Output is stable (no times, no absolute paths but the kernels' default directory) so
// that it can be compared with golden files.
#pragma once

#include <cstddef>
#include <string>

#include "hetscale/jobgen/round.hpp"

namespace hetscale::jobgen {

struct RenderOptions {
  /// Where the bundled kernels (hetscale-mm, ...) are; the script lets HETSCALE_BIN_DIR
  /// override it at run time.
  std::string kernel_dir = "/usr/local/bin";
};

/// The Slurm job name of a set's array, the one home of its form: "<experiment>-<token>-set<k>"
/// in the first round, "<experiment>-<token>-r<round>-set<k>" in a later round, <token> the
/// study's (Round::study_token; a round without one has names without it). How `hetscale
/// status` and `jobgen --resubmit` find the study's jobs, and only its own.
std::string array_job_name(const Round& round, const RoundSet& set);

/// "set<k>.sbatch".
std::string set_script_name(const RoundSet& set);
/// "hosts/set<k>.txt": one line per task, for sets whose nodes run different task counts.
std::string host_file_name(const RoundSet& set);
/// "probes/set<k>.commbench.json": the network probe of machine set `set_index`, relative to
/// the round's directory (a measured round's [probe] and the twin's probes alike).
std::string probe_file_name(std::size_t set_index);

std::string render_set_script(const Round& round, const RoundSet& set, const RenderOptions& options);
std::string render_host_file(const RoundSet& set);
std::string render_submit_script(const Round& round);

/// A round on the SimGrid twin as a Slurm array of serial tasks, one simulation each, one
/// processor each: array task i runs `hetscale twin run <dir> --task <runs - 1 - i>`, the
/// last runs first (the largest sets' runs, the longest: Slurm starts an array's tasks in
/// order, so the short ones fill the processors beside them at the end), with the hetscale
/// in `options.kernel_dir`. Partition, account and time limit from the spec.
std::string render_twin_array_script(const Round& round, std::size_t runs, const RenderOptions& options);

/// The Slurm job name of a round's array on the twin (render_twin_array_script): the twin
/// experiment's name.
std::string twin_array_job_name(const Round& round);

}  // namespace hetscale::jobgen
