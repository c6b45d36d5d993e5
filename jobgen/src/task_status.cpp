#include "hetscale/jobgen/task_status.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/scripts.hpp"

namespace hetscale::jobgen {
namespace {

// Planned sizes are whole numbers or decimals written by jobgen; a record holds the value
// the task ran with. Equal within rounding.
bool same_parameter(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

TaskState state_of_job(std::string_view slurm_state) {
  static const std::set<std::string_view> waiting = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
                                                     "RESV_DEL_HOLD", "SPECIAL_EXIT"};
  static const std::set<std::string_view> active = {"RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED",
                                                    "STOPPED", "RESIZING", "SIGNALING", "STAGE_OUT"};
  if (waiting.count(slurm_state) != 0) return TaskState::pending;
  if (active.count(slurm_state) != 0) return TaskState::running;
  if (slurm_state == "COMPLETED") return TaskState::uncollected;
  return TaskState::failed;
}

bool runs_index(const SlurmJobState& job, std::uint64_t index) {
  if (job.array_task_id) return *job.array_task_id == index;
  return std::find(job.pending_array_tasks.begin(), job.pending_array_tasks.end(), index) !=
         job.pending_array_tasks.end();
}

}  // namespace

std::vector<ArrayTask> array_tasks(const Round& round) {
  std::vector<ArrayTask> out;
  for (const RoundSet& set : round.sets) {
    for (std::size_t i = 0; i < set.parameter_values.size(); ++i) {
      out.push_back({round.number, set.set.index, set.members.size(), i, set.parameter_values[i],
                     task_repetitions(round, set, i), array_job_name(round, set),
                     round.spec.slurm.weights.size(),
                     !round.spec.code.kernel && round.spec.code.record == RecordWriter::program});
    }
  }
  return out;
}

std::string_view to_string(TaskState state) {
  switch (state) {
    case TaskState::collected: return "collected";
    case TaskState::pending: return "pending";
    case TaskState::running: return "running";
    case TaskState::uncollected: return "completed-uncollected";
    case TaskState::failed: return "failed";
    case TaskState::not_submitted: return "not-submitted";
  }
  return "?";
}

std::vector<TaskStatus> task_statuses(const std::vector<ArrayTask>& tasks, const std::vector<SlurmJobState>& jobs,
                                      const std::vector<CollectedRun>& runs) {
  std::multimap<std::string, const SlurmJobState*> by_name;
  for (const SlurmJobState& job : jobs) by_name.emplace(job.name, &job);
  std::vector<TaskStatus> out;
  for (const ArrayTask& task : tasks) {
    TaskStatus status;
    status.task = task;
    for (std::uint32_t r : task.repetitions) {
      const auto stored = std::count_if(runs.begin(), runs.end(), [&](const CollectedRun& run) {
        return run.set_index == task.set_index && run.repetition == r && same_parameter(run.parameter, task.parameter);
      });
      (static_cast<std::size_t>(stored) >= task.runs_per_repetition ? status.collected : status.missing).push_back(r);
    }
    const SlurmJobState* latest = nullptr;
    const auto [begin, end] = by_name.equal_range(task.job_name);
    for (auto it = begin; it != end; ++it) {
      if (runs_index(*it->second, task.array_index) && (latest == nullptr || it->second->job_id > latest->job_id))
        latest = it->second;
    }
    if (latest != nullptr) {
      status.job_id = latest->job_id;
      status.slurm_state = latest->state;
    }
    if (status.missing.empty()) {
      status.state = TaskState::collected;
    } else if (latest != nullptr) {
      status.state = state_of_job(latest->state);
      const bool ended = latest->state == "COMPLETED" || latest->state == "FAILED";
      if (ended && status.collected.empty() && task.only_program_records) status.note = ran_without_record_note;
    }
    out.push_back(std::move(status));
  }
  return out;
}

std::vector<SetStatus> set_statuses(const std::vector<TaskStatus>& tasks) {
  std::vector<SetStatus> out;
  for (const TaskStatus& t : tasks) {
    auto it = std::find_if(out.begin(), out.end(), [&](const SetStatus& s) {
      return s.round == t.task.round && s.set_index == t.task.set_index;
    });
    if (it == out.end()) {
      SetStatus first;
      first.round = t.task.round;
      first.set_index = t.task.set_index;
      first.nodes = t.task.nodes;
      out.push_back(std::move(first));
      it = std::prev(out.end());
    }
    ++it->tasks;
    if (!t.note.empty()) ++it->ran_without_record;
    switch (t.state) {
      case TaskState::collected: ++it->collected; break;
      case TaskState::pending: ++it->pending; break;
      case TaskState::running: ++it->running; break;
      case TaskState::uncollected: ++it->uncollected; break;
      case TaskState::failed: ++it->failed; break;
      case TaskState::not_submitted: ++it->not_submitted; break;
    }
  }
  for (SetStatus& s : out) {
    std::string parts;
    const auto part = [&parts](std::size_t n, std::string_view what) {
      if (n > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, what);
    };
    part(s.collected, "collected");
    part(s.running, "running");
    part(s.pending, "pending");
    part(s.uncollected, "completed but not collected");
    part(s.failed, "failed");
    part(s.not_submitted, "not submitted");
    s.summary = fmt::format("round {} set {} ({} node{}): {} task{}: {}", s.round, s.set_index, s.nodes,
                            s.nodes == 1 ? "" : "s", s.tasks, s.tasks == 1 ? "" : "s", parts);
    if (s.ran_without_record > 0)
      s.summary += fmt::format(" ({} {})", s.ran_without_record, ran_without_record_note);
  }
  return out;
}

Round resubmitted_round(const Round& latest, const std::vector<TaskStatus>& tasks) {
  for (const TaskStatus& t : tasks) {
    if (t.state == TaskState::pending || t.state == TaskState::running)
      throw Error(fmt::format("round {} set {} array task {} ({}={:g}) is {} (job {}): resubmit once the study's "
                              "jobs have ended (hetscale status shows them)",
                              t.task.round, t.task.set_index, t.task.array_index, latest.spec.parameter.name,
                              t.task.parameter, t.slurm_state, t.job_id.value_or(0)));
  }
  // Per set: parameter -> the repetitions to run again (two rounds may plan one size).
  std::map<std::size_t, std::map<double, std::set<std::uint32_t>>> again;
  for (const TaskStatus& t : tasks) {
    if (t.state == TaskState::collected) continue;
    auto& sizes = again[t.task.set_index];
    auto it = std::find_if(sizes.begin(), sizes.end(),
                           [&](const auto& kv) { return same_parameter(kv.first, t.task.parameter); });
    if (it == sizes.end()) it = sizes.emplace(t.task.parameter, std::set<std::uint32_t>{}).first;
    it->second.insert(t.missing.begin(), t.missing.end());
  }
  Round next = latest;
  next.number = latest.number + 1;
  for (RoundSet& set : next.sets) {
    set.parameter_values.clear();
    set.repetitions.clear();
    const auto found = again.find(set.set.index);
    if (found == again.end()) continue;
    for (const auto& [value, reps] : found->second) {
      set.parameter_values.push_back(value);
      set.repetitions.emplace_back(reps.begin(), reps.end());
    }
    again.erase(found);
    set.time_limit = planned_time_limit(next, set);  // of the sizes run again
  }
  if (!again.empty())
    throw Error(fmt::format("machine set {} has tasks to run again but is not in the latest round's plan",
                            again.begin()->first));
  return next;
}

}  // namespace hetscale::jobgen
