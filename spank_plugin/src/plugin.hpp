// The plugin's logic, one method per SPANK hook it uses; spank_shim.cpp calls them.
// Nothing here includes spank.h, so tests drive it through a fake SlurmApi.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "hetscale/rank_weights.hpp"
#include "plugin_args.hpp"
#include "site_cache_store.hpp"
#include "slurm_api.hpp"
#include "weights_option.hpp"

namespace hetscale::spank {

/// Job environment variable a batch script (or a user) sets to ask for weights; the
/// plugin sets it in a batch script so that the steps inside inherit the request.
inline constexpr const char* kRequestEnv = "HETSCALE_WEIGHTS";
/// Slurm 22.05's own environment form of the option (plugin "hetscale", option
/// "hetscale-weights").
inline constexpr const char* kSlurmOptionEnv =
    "SLURM_SPANK__SLURM_SPANK_OPTION_hetscale_hetscale_weights";

class Plugin {
 public:
  explicit Plugin(SiteTableLoader load_table) : load_table_(std::move(load_table)) {}

  /// slurm_spank_init, every context: parses plugstack arguments. Never fails: a bad
  /// configuration must not hurt jobs that do not ask; it is logged once here.
  void configure(std::span<const std::string> args, SlurmApi& slurm);

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
  /// task_init.
  int prepare_step(SlurmApi& slurm);

  /// slurm_spank_task_init (remote, in each task): sets the HETSCALE_* variables, or
  /// fails the task with the kept message.
  int task_init(SlurmApi& slurm);

  /// The mode this job runs with: its request, else the site default.
  [[nodiscard]] WeightsRequest effective_request() const;

 private:
  [[nodiscard]] bool step_wants_weights(const SlurmApi& slurm);
  StepWeights compute(SlurmApi& slurm, const StepLayout& layout);
  Partition read_partition(SlurmApi& slurm, const StepLayout& layout) const;
  void export_rank(SlurmApi& slurm) const;

  SiteTableLoader load_table_;
  PluginArgs args_;
  std::optional<std::string> config_error_;
  std::optional<WeightsRequest> request_;
  bool batch_step_ = false;
  bool site_loaded_ = false;
  std::optional<SiteTable> table_;
  std::optional<StepLayout> layout_;
  std::optional<StepWeights> weights_;
  std::string site_path_;
  std::optional<std::string> step_error_;
};

}  // namespace hetscale::spank
