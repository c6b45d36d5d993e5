// What a database holds of one experiment's rounds: what `hetscale jobgen --refine --db`
// and `--resubmit`, `hetscale twin refine`, `hetscale status` and the study's stages read.
#include "hetscale/study/stored_rounds.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "hetscale/base/error.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/session.hpp"
#include "hetscale/collector/slurm_jobs.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/site/round_plan.hpp"
#include "hetscale/slurm/jobcomp.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/slurm/sacct.hpp"

namespace hetscale::study {
namespace {

// The database must hold the plan of this very round: the same formula and target, and
// every set with the same nodes count and C (a site table changed since would not).
// `origin` names where the round came from, for messages.
void check_stored_plan(const collector::StoredExperiment& stored, const jobgen::Round& round,
                       const std::string& origin) {
  const auto& spec = round.spec;
  if (stored.workload.empty() || stored.sets.empty())
    throw Error(fmt::format("experiment '{}' has no plan in the database: collect the study first "
                            "(hetscale collect --db URI {})", spec.name, origin));
  if (stored.workload != spec.workload.text() || stored.parameter != spec.parameter.name ||
      stored.target_efficiency != spec.target_efficiency)
    throw Error(fmt::format("experiment '{}' in the database (workload {}, parameter {}, target {:g}) is not the "
                            "one in {} (workload {}, parameter {}, target {:g})", spec.name, stored.workload,
                            stored.parameter, stored.target_efficiency.value_or(0), origin, spec.workload.text(),
                            spec.parameter.name, spec.target_efficiency));
  for (const auto& s : round.sets) {
    const auto it = std::find_if(stored.sets.begin(), stored.sets.end(),
                                 [&](const auto& x) { return x.index == static_cast<int>(s.set.index); });
    const bool same = it != stored.sets.end() && it->node_count == static_cast<int>(s.members.size()) &&
                      std::abs(it->marked_speed - s.set.marked_speed) <= 1e-9 * s.set.marked_speed;
    if (!same)
      throw Error(fmt::format("machine set {} of experiment '{}' in the database is not the set of {} ({} nodes, "
                              "C = {:g}): was the plan of another site table collected?",
                              s.set.index, spec.name, origin, s.members.size(), s.set.marked_speed));
  }
}

jobgen::MeasuredRun measured_run(const collector::StoredRun& run, const std::string& parameter) {
  if (!run.parameter) throw Error(fmt::format("{}: the run has no parameter '{}'", run.source, parameter));
  return {static_cast<std::size_t>(run.set_index), *run.parameter, run.work, run.wall_seconds,
          run.marked_speed, run.speed_unit, run.source, static_cast<std::uint32_t>(std::max(run.repetition, 0))};
}

}  // namespace

StoredRounds read_stored_rounds(const std::string& db, const std::string& experiment) {
  StoredRounds out;
  // A read: a few quick retries, not the collector's long patience with a busy server.
  collector::Session session(db, {3, std::chrono::milliseconds(100), std::chrono::milliseconds(400)});
  session.run([&](pg::Connection& conn) {
    collector::require_current_schema(conn);
    collector::ExperimentSnapshot read = collector::read_experiment_snapshot(conn, experiment);
    out = {std::move(read.experiment), std::move(read.known), std::move(read.runs)};
  });
  return out;
}

std::vector<jobgen::MeasuredRun> measured_runs(const StoredRounds& stored, const jobgen::Round& round,
                                               const std::string& origin) {
  check_stored_plan(*stored.experiment, round, origin);
  std::vector<jobgen::MeasuredRun> out;
  for (const auto& run : stored.runs) out.push_back(measured_run(run, round.spec.parameter.name));
  return out;
}

// The latest round as the database holds it: the spec from its text, the site and sets
// from its plan file. Plans of older jobgens carry neither spec nor round.
namespace {

// One round from its stored spec text and plan.
jobgen::Round round_of(const collector::StoredRound& round) {
  const std::string source = fmt::format("{} (round {} in the database)", *round.spec_path, round.round);
  auto spec = jobgen::parse_experiment_spec(*round.spec_text, source);
  spec.source = *round.spec_path;
  const RoundPlan plan = parse_round_plan(round.plan, source);
  // The plan names the experiment: a twin study's plan is made from a spec of another name.
  spec.name = plan.experiment.name;
  return jobgen::round_from_plan(spec, plan);
}

}  // namespace

jobgen::Round latest_round(const std::string& experiment, const StoredRounds& stored) {
  if (!stored.experiment)
    throw Error(fmt::format("experiment '{}' is not in the database ({}): collect its study first (hetscale "
                            "collect --db URI DIR)", experiment,
                            stored.known.empty() ? std::string("it holds no experiment")
                                                 : "known: " + fmt::format("{}", fmt::join(stored.known, ", "))));
  if (stored.experiment->sets.empty())  // plans have sets; runs alone make none
    throw Error(fmt::format("experiment '{}' has no plan in the database, only runs: collect its study directory "
                            "(hetscale collect --db URI DIR, which loads DIR/plan.json)", experiment));
  const auto& round = stored.experiment->latest_round;
  if (!round || !round->spec_text)
    throw Error(fmt::format("experiment '{}' was collected from plan files without the experiment spec (written "
                            "by an older hetscale jobgen): collect the plan.json of a study written by this "
                            "jobgen (hetscale collect --db URI DIR), or give the study directories with --from "
                            "DIR...", experiment));
  return round_of(*round);
}

namespace {

jobgen::SlurmJobState job_state(const slurm::JobRecord& job) {
  return {job.cluster, job.job_id, job.job_name, job.array_job_id, job.array_task_id, job.pending_array_tasks,
          job.state};
}

// sacct's --starttime: the day before the first round was planned (local date), so that
// every job of the experiment's rounds is in its window.
std::string first_day(const std::vector<collector::StoredRound>& rounds) {
  for (const auto& round : rounds) {
    if (!round.plan_created) continue;
    std::tm utc{};
    if (strptime(round.plan_created->c_str(), "%Y-%m-%dT%H:%M:%SZ", &utc) == nullptr) break;
    std::time_t t = timegm(&utc) - 24 * 3600;
    std::tm local{};
    localtime_r(&t, &local);
    char day[16];
    std::strftime(day, sizeof day, "%Y-%m-%d", &local);
    return day;
  }
  return "now-30days";
}

}  // namespace

std::vector<jobgen::SlurmJobState> own_job_states(const std::vector<slurm::JobRecord>& jobs, std::string_view user) {
  std::vector<jobgen::SlurmJobState> out;
  for (const auto& job : jobs)
    if (job.user_name == user) out.push_back(job_state(job));
  return out;
}

ExperimentProgress experiment_progress(const std::string& db, const std::string& experiment, const Say& say) {
  const StoredRounds stored = read_stored_rounds(db, experiment);
  ExperimentProgress out;
  out.latest = latest_round(experiment, stored);  // says what to collect when nothing is there
  std::vector<jobgen::ArrayTask> tasks;
  std::vector<std::string> names;
  for (const auto& round : stored.experiment->rounds) {
    if (!round.spec_text) continue;  // written by an older jobgen: no spec, no tasks to tell
    for (auto& task : jobgen::array_tasks(round_of(round))) {
      if (std::find(names.begin(), names.end(), task.job_name) == names.end()) names.push_back(task.job_name);
      tasks.push_back(std::move(task));
    }
  }
  std::vector<jobgen::SlurmJobState> jobs;
  const std::string user = slurm::invoking_user_name();
  const slurm::AccountingQuery q = names.empty() ? slurm::AccountingQuery{slurm::AccountingQuery::Status::answered, R"({"jobs":[]})", ""}
                                          : slurm::query_accounting({"--user", user, "--starttime", first_day(stored.experiment->rounds),
                                                              "--name", fmt::format("{}", fmt::join(names, ","))});
  if (q.status == slurm::AccountingQuery::Status::answered) {
    jobs = own_job_states(slurm::read_sacct_json(q.json, "sacct --json").jobs, user);
    out.job_source = "sacct";
  } else {
    // Where no accounting answers: the ended jobs collected from jobcomp files.
    collector::Session session(db, {3, std::chrono::milliseconds(100), std::chrono::milliseconds(400)});
    session.run([&](pg::Connection& conn) {
      jobs = own_job_states(collector::read_stored_jobs(conn, names), user);
    });
    out.job_source = "slurm_jobs";
    say(LineKind::note,
        fmt::format("note: {} ({}); job states are the ended jobs collected into the database (hetscale collect "
                    "--jobcomp FILE); pending and running jobs are not seen\n",
                    q.status == slurm::AccountingQuery::Status::disabled ? "this Slurm keeps no job accounting"
                                                                         : "sacct did not answer",
                    q.detail));
  }
  std::vector<jobgen::CollectedRun> runs;
  for (const auto& run : stored.runs) {
    if (run.parameter && run.set_index >= 0 && run.repetition >= 0)
      runs.push_back({static_cast<std::size_t>(run.set_index), *run.parameter,
                      static_cast<std::uint32_t>(run.repetition)});
  }
  out.tasks = jobgen::task_statuses(tasks, jobs, runs);
  return out;
}

}  // namespace hetscale::study
