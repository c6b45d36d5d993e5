#include "task_times_writer.hpp"

#include "hetscale/base/error.hpp"
#include "hetscale/site/task_times.hpp"
#include "step_reader.hpp"

namespace hetscale::spank {
void TaskTimesWriter::open(SlurmApi& slurm) {
  if (writer_) return;
  const std::optional<std::string> dir = slurm.getenv(kTaskTimesDirEnv);
  if (!dir || dir->empty()) return;
  const std::uint64_t step = slurm.item(Item::step_id).value_or(kBatchStep);
  if (step == kBatchStep || step == kExternStep) return;
  try {
    if (dir->front() != '/') throw Error("the directory is not an absolute path");
    const StepLayout layout = read_step_layout(slurm);
    const std::string& host = layout.nodes.at(this_node_index(slurm, layout)).host;
    const std::filesystem::path file = task_times_file(*dir, host);
    file_ = file.string();
    local_tasks_ = slurm.item(Item::local_task_count).value_or(0);
    writer_ = slurm.start_user_appender(file, local_tasks_ * kMaxTaskTimeLineBytes);
  } catch (const std::exception& error) {
    give_up(slurm, error.what());
  }
}

void TaskTimesWriter::task_started(SlurmApi& slurm, std::int64_t now_ns) {
  if (!writer_) return;
  const std::optional<std::uint64_t> task = slurm.item(Item::task_global_id);
  if (!task) return give_up(slurm, "Slurm gave no global task id at the task's start");
  started_[static_cast<std::uint32_t>(*task)] = now_ns;
}

void TaskTimesWriter::task_exited(SlurmApi& slurm, std::int64_t now_ns) {
  if (!writer_) return;
  const std::optional<std::uint64_t> task = slurm.item(Item::task_global_id);
  const std::optional<std::uint64_t> status = slurm.item(Item::task_exit_status);
  if (!task || !status) return give_up(slurm, "Slurm gave no global task id or exit status at the task's exit");
  const auto started = started_.find(static_cast<std::uint32_t>(*task));
  if (started == started_.end()) return give_up(slurm, "a task exited that was not seen to start");
  const std::string line = task_time_line(
      TaskTime{started->first, started->second, std::max(now_ns, started->second), static_cast<int>(*status)});
  if (std::optional<std::string> why = writer_->append(line)) return give_up(slurm, *why);
  if (++exited_ == local_tasks_) {
    if (std::optional<std::string> why = writer_->finish(flush_bound_)) return give_up(slurm, *why);
    close();
  }
}

void TaskTimesWriter::close() { writer_.reset(); }

void TaskTimesWriter::give_up(SlurmApi& slurm, const std::string& why) {
  // slurmd's log only: the step runs as if it had not asked, and `hetscale record step`
  // says its ranks' times are nominal.
  slurm.info("hetscale: task times" + (file_.empty() ? std::string() : " in " + file_) + ": " + why +
             " (the step runs untimed)");
  close();
}

}  // namespace hetscale::spank
