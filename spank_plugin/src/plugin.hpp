// The plugin's logic, one method per SPANK hook it uses; spank_shim.cpp calls them.
// Nothing here includes spank.h, so tests drive it through a fake SlurmApi.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "hetscale/site/step_weights.hpp"
#include "hetscale/site/weights_request.hpp"
#include "plugin_args.hpp"
#include "site_cache_store.hpp"
#include "slurm_api.hpp"
#include "task_times_writer.hpp"

namespace hetscale::spank {

/// Job environment variable a batch script (or a user) sets to ask for weights; the
/// plugin sets it in a batch script so that the steps inside inherit the request.
inline constexpr const char* kRequestEnv = "HETSCALE_WEIGHTS";
/// Slurm 22.05's own environment form of the option (plugin "hetscale", option
/// "hetscale-weights").
inline constexpr const char* kSlurmOptionEnv =
    "SLURM_SPANK__SLURM_SPANK_OPTION_hetscale_hetscale_weights";

/// The variables task_init sets for a rank (docs/admin.md: HETSCALE_* only).
inline constexpr const char* kRankVariables[] = {
    "HETSCALE_WEIGHT",       "HETSCALE_MARKED_SPEED",   "HETSCALE_SYSTEM_SPEED",
    "HETSCALE_GROUP",        "HETSCALE_WEIGHTS_SOURCE", "HETSCALE_SITE",
    "HETSCALE_WEIGHTS_DIGEST"};

/// What slurmd's log adds to the reason when a step that did not ask gets no weights.
inline constexpr const char* kUnavailableNote =
    "weights unavailable: the step did not ask for them and runs without them, with "
    "HETSCALE_WEIGHTS_SOURCE=unavailable";

class Plugin {
 public:
  explicit Plugin(SiteTableLoader load_table) : load_table_(std::move(load_table)) {}

  /// slurm_spank_init, every context: parses plugstack arguments. Never fails: a bad
  /// configuration must not hurt jobs that do not ask; it is logged once here.
  void configure(std::span<const std::string> args);

  /// slurm_spank_init in slurmd itself (once when slurmd starts): logs a configuration
  /// error in slurmd's log for the admin.
  void report_config(SlurmApi& slurm) const;

  /// slurm_spank_init, local and allocator: maps HETSCALE_WEIGHTS onto Slurm's
  /// environment form of the option (the command line still wins).
  void import_request_env(SlurmApi& slurm);

  /// The option callback: nullopt when the value is good, else the message to print
  /// (the callback has no spank handle, so the shim logs it).
  std::optional<std::string> on_option(const char* value);

  /// slurm_spank_init_post_opt, local and allocator: refuses a job that asks for weights
  /// under a broken configuration, before anything runs.
  int check_request(SlurmApi& slurm);

  /// slurm_spank_init_post_opt, allocator (sbatch, salloc): puts an explicit request into
  /// HETSCALE_WEIGHTS of the command's environment, so that the shell salloc starts, and
  /// the job sbatch submits, hand it on to their sruns.
  void export_request(SlurmApi& slurm) const;

  /// slurm_spank_init_post_opt, remote (root, once per step and node): loads the site
  /// table through its cache when the step wants weights. Never fails by itself: a
  /// failure is kept, reported by prepare_step and fails the tasks.
  int load_site(SlurmApi& slurm);

  /// slurm_spank_user_init (remote, once per step and node, with the user's privileges
  /// for a FILE): computes the step's weights; a failure is logged once and kept for
  /// task_init: on the step's output when the job asked, else in slurmd's log only.
  int prepare_step(SlurmApi& slurm);

  /// slurm_spank_task_init (remote, in each task): sets the HETSCALE_* variables. Without
  /// weights, a job that asked fails; a step that did not ask (the site default) runs
  /// with HETSCALE_WEIGHTS_SOURCE=unavailable and nothing else.
  int task_init(SlurmApi& slurm);

  /// The mode this job runs with: its request, else the site default.
  [[nodiscard]] WeightsRequest effective_request() const;

  /// Whether the job itself asked for weights (option or HETSCALE_WEIGHTS), as opposed to
  /// getting them from the site's default. Only such a step may ever fail because of us.
  [[nodiscard]] bool asked() const;

  /// What a hook returns when something unexpected escaped: -1 only for a job that asked.
  [[nodiscard]] int failure_code() const;

  /// The step's task times (user_init, task_post_fork, task_exit, exit), independent of
  /// weights: a step runs with weights off and is still timed.
  TaskTimesWriter& task_times() { return task_times_; }

 private:
  [[nodiscard]] bool step_wants_weights(const SlurmApi& slurm);
  StepWeights compute(SlurmApi& slurm, const StepLayout& layout);
  Partition read_partition(SlurmApi& slurm) const;
  void export_rank(SlurmApi& slurm) const;
  int mark_unavailable(SlurmApi& slurm) const;

  SiteTableLoader load_table_;
  PluginArgs args_;
  std::optional<std::string> config_error_;
  std::optional<WeightsRequest> request_;
  bool batch_step_ = false;
  bool site_loaded_ = false;
  std::optional<SiteTable> table_;
  std::optional<StepLayout> layout_;
  std::optional<std::uint32_t> node_index_;  // this node in layout_
  std::optional<StepWeights> weights_;
  std::string site_path_;
  std::optional<std::string> step_error_;
  TaskTimesWriter task_times_;
};

}  // namespace hetscale::spank
