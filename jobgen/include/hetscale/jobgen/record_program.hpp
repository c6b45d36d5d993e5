// The program of a command whose records it writes itself ([code] record = "program",
// docs/experiment-spec.md): found as the job would find it, and looked at for a sign that
// it writes a run record, so that jobgen warns before an array runs and records nothing.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "hetscale/jobgen/experiment_spec.hpp"

namespace hetscale::jobgen {

/// The marker of jobgen/helpers/hetscale_record.h in a compiled program: the name of the
/// variable hetscale_write_record passes to getenv, so any program that calls it holds
/// these bytes.
inline constexpr std::string_view record_variable_marker = "HETSCALE_RECORD";

/// What a program file shows of the record helpers: `what` names the sign found ("needs
/// libhetscale_record.so.1", "holds HETSCALE_RECORD", "names hetscale_record"), empty
/// when there is none.
struct RecordSign {
  std::string what;
  [[nodiscard]] bool found() const { return !what.empty(); }
};

/// The sign in the program file at `program`: an ELF file whose dynamic section needs
/// libhetscale_record (DT_NEEDED; files of the host's byte order) or that holds the bytes
/// HETSCALE_RECORD; a script (`#!`) whose text names hetscale_record or HETSCALE_RECORD.
/// Anything else shows none. Throws FileReadError when the file cannot be read.
RecordSign record_sign(const std::filesystem::path& program);

/// How the job would find a command's program.
struct ProgramLookup {
  std::filesystem::path run_dir;  // where the job runs (the study directory): relative paths start there
  // The variables of the shell that submits the job (its environment reaches the job):
  // none when unset.
  std::function<std::optional<std::string>(const std::string& name)> variable;
};

/// A variable of this process's environment (getenv), for ProgramLookup::variable.
std::optional<std::string> environment_variable(const std::string& name);

/// The program a command line runs, or why it cannot be told before the job runs.
struct ResolvedProgram {
  std::string word;                         // the command's first word as written
  std::optional<std::filesystem::path> path;  // the executable file it names
  std::string problem;                      // when none: why, e.g. "$M is set only when the job runs"
};

/// The first word of `command` (after any NAME=value assignments), with its quotes
/// removed and $NAME, ${NAME} and a leading ~ expanded, found as a path (a relative one
/// under `lookup.run_dir`) or on the PATH. The scripts' own variables (`parameter`,
/// `repetition`, SLURM_*, HETSCALE_*) and any other expansion are known only when the job
/// runs; `study_dir` is `lookup.run_dir`.
ResolvedProgram resolve_program(std::string_view command, std::string_view parameter, const ProgramLookup& lookup);

/// "file:line:col: warning: [code] record = "program" but ..." when the spec's command
/// writes its records itself and its program shows no sign of doing so, cannot be found
/// or cannot be told before the job runs; none for a kernel, for `record = "step"` and for
/// a program with a sign (record_sign).
std::optional<std::string> record_program_warning(const ExperimentSpec& spec, const ProgramLookup& lookup);

}  // namespace hetscale::jobgen
