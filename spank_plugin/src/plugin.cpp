#include "plugin.hpp"

#include <charconv>

#include "hetscale/base/error.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/site/hostlist.hpp"
#include "step_reader.hpp"

namespace hetscale::spank {
namespace {

// Runs `work`, turning any hetscale::Error into one "hetscale: <phase>: ..." Error.
template <typename Work>
auto in_phase(const char* phase, Work&& work) {
  try {
    return work();
  } catch (const Error& error) {
    std::string what = error.what();
    if (what.rfind("hetscale: ", 0) == 0) throw;
    throw Error(std::string("hetscale: ") + phase + ": " + what);
  }
}

// Shortest text that reads back as the same double.
std::string format_speed(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : format_weight(value);
}

}  // namespace

// A bad configuration is reported where a job asks (check_request, prepare_step) and once
// in slurmd's log (report_config), not here: every srun, sbatch and slurmstepd runs this.
void Plugin::configure(std::span<const std::string> args) {
  try {
    args_ = parse_plugin_args(args);
  } catch (const Error& error) {
    config_error_ = error.what();
  }
}

void Plugin::report_config(SlurmApi& slurm) const {
  if (config_error_) {
    slurm.error(*config_error_ + " (steps that ask for weights fail until it is fixed; "
                                  "other steps run as usual)");
  }
}

bool Plugin::asked() const {
  return request_ && request_->wants_weights();
}

void Plugin::import_request_env(SlurmApi& slurm) {
  std::optional<std::string> request = slurm.getenv(kRequestEnv);
  if (request && !slurm.getenv(kSlurmOptionEnv)) slurm.setenv(kSlurmOptionEnv, *request);
}

std::optional<std::string> Plugin::on_option(const char* value) {
  try {
    request_ = parse_weights_request(value ? value : "");
    return std::nullopt;
  } catch (const Error& error) {
    return error.what();
  }
}

WeightsRequest Plugin::effective_request() const {
  if (request_) return *request_;
  if (args_.default_mode == DefaultMode::marked) return {WeightsRequest::Kind::marked, {}};
  return {};
}

int Plugin::check_request(SlurmApi& slurm) {
  if (slurm.getenv(kRequestEnv)) slurm.unsetenv(kSlurmOptionEnv);
  if (request_ && request_->wants_weights() && config_error_) {
    slurm.error(*config_error_);
    return -1;
  }
  return 0;
}

void Plugin::export_request(SlurmApi& slurm) const {
  if (request_) slurm.setenv(kRequestEnv, to_option_value(*request_));
}

bool Plugin::step_wants_weights(const SlurmApi& slurm) {
  std::uint64_t step = slurm.item(Item::step_id).value_or(0);
  batch_step_ = step == kBatchStep;
  return !batch_step_ && step != kExternStep && effective_request().wants_weights();
}

int Plugin::load_site(SlurmApi& slurm) {
  if (site_loaded_ || !step_wants_weights(slurm) || config_error_) return 0;
  site_loaded_ = true;
  try {
    layout_ = read_step_layout(slurm);
    node_index_ = this_node_index(slurm, *layout_);  // once per step, not per task
    std::vector<std::string> hosts;  // the cache builds only these nodes
    hosts.reserve(layout_->nodes.size());
    for (const StepNode& node : layout_->nodes) hosts.push_back(node.host);
    table_ = in_phase("table", [&] {
      return load_site_table_cached(args_.site, args_.cache, load_table_, hosts);
    });
  } catch (const Error& error) {
    step_error_ = error.what();
  } catch (const std::exception& error) {
    step_error_ = std::string("hetscale: internal: ") + error.what();
  }
  return 0;
}

int Plugin::prepare_step(SlurmApi& slurm) {
  if (!step_wants_weights(slurm)) return 0;
  if (config_error_) {
    step_error_ = config_error_;  // only a step that asked can get here (the default is off)
  } else {
    load_site(slurm);  // a no-op when init_post_opt did it
    try {
      if (!step_error_) weights_ = compute(slurm, *layout_);
    } catch (const Error& error) {
      step_error_ = error.what();
    } catch (const std::exception& error) {
      step_error_ = std::string("hetscale: internal: ") + error.what();
    }
  }
  if (!step_error_) return 0;
  if (asked()) {
    // Logged once per node: slurmstepd shows it on the user's terminal and in its log.
    // The step fails in task_init: a failing user_init makes srun exit 0 in 22.05.
    slurm.error(*step_error_);
  } else {
    // The site's default asked, not the job: the step runs without weights, and only
    // slurmd's log says why.
    slurm.info(*step_error_ + " (" + kUnavailableNote + ")");
  }
  return 0;
}

StepWeights Plugin::compute(SlurmApi& slurm, const StepLayout& layout) {
  const SiteTable& table = *table_;
  site_path_ = args_.site.string();
  StepWeights marked =
      in_phase("weights", [&] { return marked_weights(table, layout, args_.on_missing); });
  WeightsRequest request = effective_request();
  if (request.kind == WeightsRequest::Kind::marked) {
    marked.digest = weights_digest(table, layout, nullptr);
    return marked;
  }
  Partition partition = in_phase("partition", [&] { return read_partition(slurm); });
  const char* source = request.kind == WeightsRequest::Kind::file ? "file" : "equalized";
  StepWeights weights = in_phase("partition", [&] {
    return partition_weights(std::move(marked), partition, layout, table, source);
  });
  weights.digest = weights_digest(table, layout, &partition);
  return weights;
}

Partition Plugin::read_partition(SlurmApi& slurm) const {
  WeightsRequest request = effective_request();
  const std::size_t step_nodes = layout_->nodes.size();
  if (request.kind == WeightsRequest::Kind::equalized) {
    // The file is named by the step's node list in Slurm's compressed form, rebuilt from
    // the checked host names (none holds '/' or ".."), never taken from the environment:
    // the job's user's own, else the site's (root's); no other user's file is believed.
    std::vector<std::string> hosts;
    hosts.reserve(step_nodes);
    for (const StepNode& node : layout_->nodes) hosts.push_back(node.host);
    const uid_t job_uid = static_cast<uid_t>(slurm.item(Item::job_uid).value_or(0));
    return read_equalized_partition(args_.partitions, hosts, job_uid);
  }
  std::filesystem::path path = request.file;
  if (path.is_relative()) {
    path = std::filesystem::path(slurm.getenv("PWD").value_or("/")) / path;
  }
  return parse_partition(slurm.read_user_file(path), path.string(), step_nodes);
}

int Plugin::task_init(SlurmApi& slurm) {
  if (batch_step_) {
    // Hand the request on to the steps the batch script starts.
    if (request_) slurm.setenv(kRequestEnv, to_option_value(*request_));
    return 0;
  }
  if (!effective_request().wants_weights()) return 0;
  if (step_error_) return asked() ? -1 : mark_unavailable(slurm);  // reported by prepare_step
  std::string message;
  try {
    if (!weights_ || !layout_ || !node_index_)
      throw Error("hetscale: internal: weights were not computed");
    export_rank(slurm);
    return 0;
  } catch (const Error& error) {
    message = error.what();
  } catch (const std::exception& error) {
    message = std::string("hetscale: internal: ") + error.what();
  }
  if (asked()) {
    slurm.error(message);
    return -1;
  }
  slurm.info(message + " (" + kUnavailableNote + ")");
  return mark_unavailable(slurm);
}

int Plugin::mark_unavailable(SlurmApi& slurm) const {
  // Best effort: whatever export_rank may have set before it failed goes, and one
  // variable says why there is nothing. A step that did not ask never fails here.
  try {
    for (const char* name : kRankVariables) slurm.unsetenv(name);
    slurm.setenv("HETSCALE_WEIGHTS_SOURCE", "unavailable");
  } catch (...) {
  }
  return 0;
}

int Plugin::failure_code() const {
  return asked() ? -1 : 0;
}

void Plugin::export_rank(SlurmApi& slurm) const {
  std::optional<std::uint64_t> rank = slurm.item(Item::task_global_id);
  if (!rank) throw Error("hetscale: task: Slurm gave no global task id");
  StepWeights::Rank values = in_phase("task", [&] { return weights_->rank(*node_index_, *rank); });
  in_phase("env", [&] {
    slurm.setenv("HETSCALE_WEIGHT", format_weight(values.weight));
    slurm.setenv("HETSCALE_MARKED_SPEED", format_speed(values.marked_speed));
    slurm.setenv("HETSCALE_SYSTEM_SPEED", format_speed(weights_->system_speed));
    slurm.setenv("HETSCALE_GROUP", std::string(values.group));
    slurm.setenv("HETSCALE_WEIGHTS_SOURCE", weights_->source);
    slurm.setenv("HETSCALE_SITE", site_path_);
    slurm.setenv("HETSCALE_WEIGHTS_DIGEST", weights_->digest);
    return 0;
  });
}

}  // namespace hetscale::spank
