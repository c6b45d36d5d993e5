// hetscale study: the whole study as Slurm jobs (logic in the study library, docs/study.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/study/study_run.hpp"
#include "invocation.hpp"

namespace hetscale::cli {
namespace {

namespace fs = std::filesystem;

struct StudyRunArgs {
  std::string spec;
  std::string site;
  std::string db;
  std::string dir;
  std::string kernel_dir;
  std::string partitions;
  std::optional<std::uint32_t> twin_nodes;
  bool wait = false;
};

// The running executable: what the controller jobs run.
fs::path this_executable() {
  if (auto self = own_executable()) return *self;
  throw Error("cannot tell where this hetscale is (/proc/self/exe)");
}

std::string job_or_none(const std::optional<std::uint64_t>& job) {
  return job ? fmt::format("{}", *job) : std::string("none");
}

void print_status(const study::StudyState& state, Context& context) {
  context.out << fmt::format("stage {}, round {}, controller job {}\n", study::to_string(state.phase), state.round,
                             job_or_none(state.controller));
  if (state.twin) {
    context.out << fmt::format("twin: stage {}\n", study::to_string(state.twin->phase));
    for (const auto& a : state.twin->arrays)
      context.out << fmt::format("twin: {} round {}, array job {}, controller job {}\n", a.experiment, a.round,
                                 a.job_id, job_or_none(a.controller));
  }
  if (!state.failure.empty()) context.out << "failed: " << state.failure << '\n';
  if (state.twin && !state.twin->failure.empty()) context.out << "twin failed: " << state.twin->failure << '\n';
  for (const auto& h : state.history)
    if (h.stage == study::precision_stage) context.out << h.text << '\n';
}

// Polls the state until the study is done (returns) or either chain failed (throws, the
// stage named), printing each history entry once.
void wait_for(const fs::path& dir, std::size_t printed, Context& context) {
  for (int idle = 0;; ++idle) {
    const study::StudyState state = study::load_state(dir);
    for (; printed < state.history.size(); ++printed, idle = 0) {
      const auto& h = state.history[printed];
      context.out << fmt::format("{} {}: {}\n", h.time, h.stage, h.text) << std::flush;
    }
    if (state.phase == study::Phase::done) return;
    if (const auto failure = study::study_failure(state))
      throw Error(fmt::format("study failed in stage {}", *failure));
    // A controller that ended without a word (cancelled, node lost) leaves nothing to wait for.
    // The state is read again after Slurm says the job ended: a controller that saved its
    // last step and exited between the read above and the question is not one of those.
    if (idle >= 3) {
      const std::vector<std::uint64_t> awaited = study::awaited_controllers(state);
      const std::vector<std::uint64_t> active = slurm::active_jobs(awaited);
      for (const std::uint64_t id : awaited) {
        if (std::find(active.begin(), active.end(), id) != active.end()) continue;
        const study::StudyState after = study::load_state(dir);
        if (after.history.size() != state.history.size()) break;
        throw Error(fmt::format("controller job {} ended without finishing its step: hetscale study resume --dir {}",
                                id, dir.string()));
      }
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

}  // namespace

void register_study(CLI::App& app, Context& context) {
  auto* cmd = app.add_subcommand("study", "The whole study as Slurm jobs: plan, run, collect, refine, report "
                                          "(docs/study.md)");
  cmd->require_subcommand(1);

  auto args = std::make_shared<StudyRunArgs>();
  auto* run = cmd->add_subcommand("run", "Check everything, submit round 0 and the controller job that carries the "
                                         "study on");
  run->add_option("spec", args->spec, "Study spec (TOML)")->required();
  run->add_option("--site", args->site, "Site table (TOML; default: the config file's site)");
  run->add_option("--db", args->db, "Database to collect into (default: HETSCALE_DB or the config file's)");
  run->add_option("--dir", args->dir, "Directory of the study (new or empty): state, rounds, psi.txt, report/")
      ->required();
  run->add_option("--kernel-dir", args->kernel_dir,
                  "Where the bundled kernels are (default: the config file's kernel_dir, else next to hetscale)");
  run->add_option("--partitions", args->partitions, "Where equalize writes partition files (the plugin's partitions=)");
  run->add_option("--twin-nodes", args->twin_nodes,
                  "The twin's largest set instead of the spec's [twin] nodes (0: no twin stage)");
  run->add_flag("--wait", args->wait, "Wait until the study is done or failed, printing each stage as it ends");
  run->callback([args, &context] {
    study::RunOptions options{args->spec,
                              required_site_table(args->site),
                              configured_database(args->db),
                              args->dir,
                              kernel_dir_from(args->kernel_dir),
                              args->partitions,
                              this_executable(),
                              args->twin_nodes};
    study::run_study(options, context.out);
    if (args->wait) wait_for(fs::absolute(args->dir), 0, context);
  });

  auto dir = std::make_shared<std::string>();
  auto chain = std::make_shared<std::string>("measured");
  auto* step = cmd->add_subcommand("step", "What the controller job runs: collect, then the next round or the end");
  step->add_option("--dir", *dir, "Directory of the study")->required();
  step->add_option("--chain", *chain, "The chain whose step it is: measured (the measured rounds) or twin")
      ->check(CLI::IsMember({"measured", "twin"}))
      ->capture_default_str();
  step->callback([dir, chain, &context] {
    print_status(study::step_study(*dir, *study::chain_from(*chain), context.out), context);
  });

  auto resume_wait = std::make_shared<bool>(false);
  auto* resume = cmd->add_subcommand("resume", "Carry on a study whose controller job was cancelled or crashed");
  resume->add_option("--dir", *dir, "Directory of the study")->required();
  resume->add_flag("--wait", *resume_wait, "Wait until the study is done or failed");
  resume->callback([dir, resume_wait, &context] {
    const auto state = study::resume_study(*dir, context.out);
    print_status(state, context);
    if (*resume_wait) wait_for(fs::absolute(*dir), state.history.size(), context);
  });

  auto* status = cmd->add_subcommand("status", "The study's stage, round and controller job");
  status->add_option("--dir", *dir, "Directory of the study")->required();
  status->callback([dir, &context] { print_status(study::load_state(*dir), context); });
}

}  // namespace hetscale::cli
