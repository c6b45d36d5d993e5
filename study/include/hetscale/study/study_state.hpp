// A study's state in its directory (DIR/study.state, JSON, written atomically): the phase,
// the refinement round, the arrays of the current phase, the controller job and the history.
// What `hetscale study step` reads and writes; `study status` and `study resume` read it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale::study {

/// The phase of a study (the state file's `stage`, as `hetscale study status` prints it;
/// the stages are what a controller's step runs through, study_run.hpp): measure: round
/// `round` of every experiment runs; rerun: the equalized set runs again; done is final;
/// failed is until `study resume` takes the failed step again.
enum class Phase { measure, rerun, done, failed };
std::string_view to_string(Phase phase);

/// One submitted array job: the set of an experiment, the directory it was written into.
struct SubmittedArray {
  std::string experiment;
  std::uint32_t set_index = 0;
  std::uint64_t job_id = 0;
  std::string directory;
};

/// A job of the study whose submission has begun and whose id is not recorded yet: saved
/// in the state before sbatch runs, gone once the id is recorded (in `arrays` or as the
/// controller). Left in the state, it is a submission whose outcome is not known (sbatch
/// timed out, was killed, or died with the step): the job may exist, and is looked up by
/// its comment before anything else is done (study_submission.hpp).
struct PendingSubmission {
  enum class Kind { array, controller };
  Kind kind = Kind::array;
  std::string job_name;        // the script's --job-name
  std::string comment;         // sbatch --comment, unique to the submission
  std::int64_t attempted = 0;  // when sbatch was started, Unix seconds
  // An array's set and directory, as SubmittedArray keeps them (a controller has none).
  std::string experiment;
  std::uint32_t set_index = 0;
  std::string directory;
};

struct HistoryEntry {
  std::string time;  // UTC, ISO 8601
  std::string stage; // the stage that ended or the step taken ("submitted", "collected", ...)
  std::string text;
};

struct StudyState {
  // The inputs of `hetscale study run`, absolute.
  std::string spec;
  std::string site;
  std::string db;
  std::string kernel_dir;
  std::string partitions;  // where equalize writes its partition files (the plugin's partitions=)
  std::string hetscale;    // the executable the controller jobs run
  std::optional<std::uint32_t> twin_nodes;  // instead of the spec's [twin] nodes (0: no twin)
  // The study's token (hetscale/site/study_token.hpp), drawn by `study run`: in every array
  // job name of its rounds. Empty in the state of a study begun without one.
  std::string study_token;
  Phase phase = Phase::measure;
  std::uint32_t round = 0;
  std::vector<SubmittedArray> arrays;       // of the current phase
  std::optional<std::uint64_t> controller;  // the controller job waiting on them
  std::optional<PendingSubmission> pending;  // a submission whose job id is not recorded
  std::uint64_t submissions = 0;             // jobs submitted so far: numbers their comments
  std::vector<HistoryEntry> history;
  std::string failure;  // when failed: the stage and why
  std::optional<Phase> failed_phase;  // when failed: the phase whose step failed (measure or rerun)

  [[nodiscard]] std::vector<std::uint64_t> array_job_ids() const;
  [[nodiscard]] bool finished() const { return phase == Phase::done || phase == Phase::failed; }
};

/// Without any database password (remove_connection_passwords): `db`, history and failure.
std::string state_json(const StudyState& state);
/// Throws Error naming `source` for a state file it cannot read.
StudyState parse_state(std::string_view text, const std::string& source);

std::filesystem::path state_path(const std::filesystem::path& dir);
StudyState load_state(const std::filesystem::path& dir);
/// Writes DIR/study.state atomically (readers see the old state or the new), mode 0600.
void save_state(const std::filesystem::path& dir, const StudyState& state);

/// Appends a history entry stamped now.
void record(StudyState& state, std::string_view stage, std::string text);

}  // namespace hetscale::study
