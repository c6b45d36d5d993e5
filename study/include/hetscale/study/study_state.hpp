// A study's state in its directory (DIR/study.state, JSON, written atomically): the phase,
// the refinement round, the arrays of the current phase, the controller job, the twin's
// chain of arrays and controllers beside them, and the history. What `hetscale study step`
// reads and writes (under the study's lock); `study status` and `study resume` read it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale::study {

/// The phase of a study's measured chain (the state file's `stage`, as `hetscale study
/// status` prints it; the stages are what a controller's step runs through, study_run.hpp):
/// measure: round `round` of every experiment runs; rerun: the equalized set runs again;
/// twin: the measured rounds have ended (psi table, forecasts) and the twin's chain, still
/// running, writes the report when it ends; done is final; failed is until `study resume`
/// takes the failed step again.
enum class Phase { measure, rerun, twin, done, failed };
std::string_view to_string(Phase phase);

/// The phase of the twin's chain (the state file's `twin_chain.stage`): waiting: not begun
/// (it begins beside the measured rounds once round 0 is collected, or after them);
/// simulate: each experiment's twin runs its rounds as arrays, each with a controller that
/// waits on it; done; failed until `study resume` takes its steps again.
enum class TwinPhase { waiting, simulate, done, failed };
std::string_view to_string(TwinPhase phase);

/// One submitted array job: the set of an experiment, the directory it was written into.
struct SubmittedArray {
  std::string experiment;
  std::uint32_t set_index = 0;
  std::uint64_t job_id = 0;
  std::string directory;
};

/// One array of the twin's simulations: one experiment's round, in its directory, and the
/// twin's controller that waits on it.
struct TwinArray {
  std::string experiment;
  std::uint32_t round = 0;
  std::uint64_t job_id = 0;
  std::string directory;
  std::optional<std::uint64_t> controller;
};

/// The twin's chain of steps, beside the measured one: one array per experiment whose twin
/// still runs (in the twin's partition), each experiment's rounds going on at their own pace.
/// `begun` names the experiments whose twin has begun (its first round's array recorded, or
/// nothing to simulate): a begin that failed partway begins only the others when taken again.
struct TwinChain {
  TwinPhase phase = TwinPhase::waiting;
  std::vector<TwinArray> arrays;
  std::vector<std::string> begun;
  std::string failure;  // when failed: the stage and why

  [[nodiscard]] std::vector<std::uint64_t> array_job_ids() const;
  [[nodiscard]] std::vector<std::uint64_t> controllers() const;
  /// The array of `experiment`'s twin; none once its twin has ended (or before it begins).
  [[nodiscard]] TwinArray* array_of(std::string_view experiment);
  [[nodiscard]] bool has_begun(std::string_view experiment) const;
  /// Adds `experiment` to `begun` (once).
  void mark_begun(const std::string& experiment);
};

/// A job of the study whose submission has begun and whose id is not recorded yet: saved
/// in the state before sbatch runs, gone once the id is recorded where its kind says.
/// Left in the state, it is a submission whose outcome is not known (sbatch timed out, was
/// killed, or died with the step): the job may exist, and is looked up by its comment
/// before anything else is done, by a step of either chain or a resume (study_submission.hpp).
struct PendingSubmission {
  /// What the job is, and so where its id goes: a set's array of the measured phase
  /// (`arrays`), the measured chain's controller (`controller`), an experiment's round of
  /// the twin (its TwinArray in `twin`, replacing the round before), or the twin's
  /// controller that waits on that round (the TwinArray's controller).
  enum class Kind { array, controller, twin_array, twin_controller };
  Kind kind = Kind::array;
  std::string job_name;        // the script's --job-name
  std::string comment;         // sbatch --comment, unique to the submission
  std::int64_t attempted = 0;  // when sbatch was started, Unix seconds
  // An array's experiment and directory (a measured set's, or a twin round's); a measured
  // array's set; a twin array's round. A twin controller's experiment and round are those
  // of the array it waits on; a measured controller has none.
  std::string experiment;
  std::uint32_t set_index = 0;
  std::uint32_t round = 0;
  std::string directory;

  /// A job of the twin's chain (its array or its controller).
  [[nodiscard]] bool of_twin() const { return kind == Kind::twin_array || kind == Kind::twin_controller; }
};
/// "array", "controller", "twin_array", "twin_controller": the state file's pending.kind.
std::string_view to_string(PendingSubmission::Kind kind);

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
  std::optional<TwinChain> twin;      // a study with a twin: its chain

  [[nodiscard]] std::vector<std::uint64_t> array_job_ids() const;
  /// The measured chain has nothing left to do: the study is done or failed, or it waits
  /// for the twin's chain.
  [[nodiscard]] bool finished() const {
    return phase == Phase::done || phase == Phase::failed || phase == Phase::twin;
  }
};

/// Without any database password (remove_connection_passwords): `db`, history and failure.
std::string state_json(const StudyState& state);
/// Throws Error naming `source` for a state file it cannot read.
StudyState parse_state(std::string_view text, const std::string& source);

std::filesystem::path state_path(const std::filesystem::path& dir);
StudyState load_state(const std::filesystem::path& dir);
/// Writes DIR/study.state atomically (readers see the old state or the new), mode 0600.
void save_state(const std::filesystem::path& dir, const StudyState& state);

/// The history stage of the lines that say whether a set reached its [refine] precision;
/// `hetscale study status` prints them.
inline constexpr std::string_view precision_stage = "precision";

/// Appends a history entry stamped now.
void record(StudyState& state, std::string_view stage, std::string text);

}  // namespace hetscale::study
