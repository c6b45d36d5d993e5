// Reading every input, then loading plans and record batches through a retrying session.
#include "hetscale/collector/collect.hpp"

#include <algorithm>
#include <fstream>
#include <future>
#include <ostream>

#include "hetscale/base/input_files.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/collector/run_loader.hpp"
#include "hetscale/collector/slurm_jobs.hpp"
#include "hetscale/site/round_plan.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/slurm/jobcomp.hpp"
#include "hetscale/slurm/sacct.hpp"

namespace hetscale::collector {
namespace {

namespace fs = std::filesystem;

struct RecordInput {
  std::string source;  // file name, or "<stdin>"
  RunRecordFile file;
};

struct JobcompInput {
  std::string source;
  std::vector<slurm::JobRecord> jobs;
};

struct Inputs {
  std::vector<RoundPlan> plans;
  std::vector<RecordInput> records;
  std::vector<JobcompInput> jobcomp;
};

bool is_plan_file(const fs::path& path) {
  return path.extension() == ".json";
}

Inputs read_inputs(const CollectOptions& options, std::istream& stdin_stream) {
  const OnInvalid on_invalid = options.skip_invalid ? OnInvalid::skip : OnInvalid::fail;
  Inputs out;
  for (const std::string& input : options.inputs) {
    if (input == "-") {
      out.records.push_back({"<stdin>", read_run_records(stdin_stream, "<stdin>", on_invalid)});
      continue;
    }
    for (const fs::path& file : input_files(input, {".json", ".jsonl"})) {
      if (is_plan_file(file)) {
        out.plans.push_back(load_round_plan(file));
      } else {
        out.records.push_back({file.string(), read_run_records(file, on_invalid)});
      }
    }
  }
  for (const std::string& file : options.jobcomp) {
    JobcompInput& input = out.jobcomp.emplace_back(JobcompInput{file, slurm::read_jobcomp(file)});
    slurm::name_unknown_clusters(input.jobs, options.cluster, file);
  }
  for (const SacctOutput& sacct : options.sacct)
    out.jobcomp.push_back({sacct.source, ended_jobs(slurm::read_sacct_json(sacct.text, sacct.source))});
  return out;
}

std::size_t set_aside(const Inputs& inputs, const fs::path& rejects, std::ostream& log) {
  std::size_t count = 0;
  std::ofstream out;
  for (const RecordInput& input : inputs.records) {
    for (const RejectedLine& bad : input.file.rejected) {
      if (!out.is_open()) {
        out.open(rejects, std::ios::app | std::ios::binary);
        if (!out) throw Error("collect: cannot write rejects file " + rejects.string());
      }
      out << bad.text << '\n';
      log << "collect: rejected " << bad.where.str() << ": " << bad.message << '\n';
      ++count;
    }
  }
  if (out.is_open() && !out.flush())
    throw Error("collect: cannot write rejects file " + rejects.string());
  return count;
}

// One batch of run records: at most batch_size records of one file.
struct RecordBatch {
  const std::string* source;
  std::span<const NumberedRunRecord> records;
};

std::vector<RecordBatch> record_batches(const std::vector<RecordInput>& inputs,
                                        std::size_t batch_size) {
  std::vector<RecordBatch> out;
  for (const RecordInput& input : inputs) {
    const std::vector<NumberedRunRecord>& records = input.file.records;
    for (std::size_t at = 0; at < records.size(); at += batch_size) {
      out.push_back({&input.source, std::span<const NumberedRunRecord>(records).subspan(
                                        at, std::min(batch_size, records.size() - at))});
    }
  }
  return out;
}

std::future<PreparedBatch> prepare_async(const RecordBatch& batch) {
  return std::async(std::launch::async,
                    [batch] { return prepare_run_batch(batch.records, *batch.source); });
}

// Two threads, one batch apart: while this thread loads batch k (the server COPYs it, the
// client mostly waits), a worker prepares batch k+1 (natural keys, sorting, COPY rows; no
// database), so that the server seldom waits for the client. The batches and their
// transactions are the same as without the worker: batch k+1 is loaded only after batch k
// committed, each in its own transaction, retried on its own by the session with the same
// prepared rows; an error in batch k stops the load there, and the worker's batch k+1 is
// thrown away. `first` is batch 0, started by the caller before connecting.
void load_records(Session& session, const std::vector<RecordBatch>& batches,
                  std::future<PreparedBatch> first, CollectReport& report) {
  std::future<PreparedBatch> next = std::move(first);
  for (std::size_t k = 0; k < batches.size(); ++k) {
    const PreparedBatch batch = next.get();
    if (k + 1 < batches.size()) next = prepare_async(batches[k + 1]);
    BatchCounts counts;
    session.run([&](pg::Connection& conn) { counts = load_prepared_batch(conn, batch); });
    report.runs_added += counts.runs_added;
    report.runs_present += counts.runs_present;
    report.rank_rows_added += counts.rank_rows_added;
  }
}

void load_jobcomp(Session& session, const JobcompInput& input, std::size_t batch_size,
                  CollectReport& report) {
  const std::vector<slurm::JobRecord>& jobs = input.jobs;
  for (std::size_t at = 0; at < jobs.size(); at += batch_size) {
    const std::span<const slurm::JobRecord> batch(jobs.data() + at,
                                               std::min(batch_size, jobs.size() - at));
    long long added = 0;
    session.run([&](pg::Connection& conn) {
      pg::Transaction tx(conn, pg::TransactionMode::load);
      added = load_slurm_jobs_batch(conn, batch, input.source);
      tx.commit();
    });
    report.jobs_added += added;
  }
}

}  // namespace

CollectReport collect(const std::string& uri, const CollectOptions& options,
                      std::istream& stdin_stream, std::ostream& log) {
  if (options.batch_size == 0) throw Error("collect: batch size must be positive");
  const Inputs inputs = read_inputs(options, stdin_stream);
  CollectReport report;
  report.plans = inputs.plans.size();
  report.record_files = inputs.records.size();
  for (const RecordInput& input : inputs.records) report.records += input.file.records.size();
  for (const JobcompInput& input : inputs.jobcomp) report.jobs_read += input.jobs.size();
  report.rejected = set_aside(inputs, options.rejects, log);
  for (const RecordInput& input : inputs.records) {
    if (input.file.held_back_line == 0) continue;
    log << "collect: held back " << input.source << ':' << input.file.held_back_line
        << ": unterminated last line (still being written?); a later collect loads it once "
           "complete\n";
    ++report.held_back;
  }

  const std::vector<RecordBatch> batches = record_batches(inputs.records, options.batch_size);
  std::future<PreparedBatch> first;  // prepared while connecting and loading plans
  if (!batches.empty()) first = prepare_async(batches.front());

  Session session(uri, options.backoff,
                  [&log](const pg::DbError& e, std::chrono::milliseconds delay) {
                    log << "collect: " << e.what() << "; retrying in " << delay.count() << " ms\n";
                  });
  session.run([](pg::Connection& conn) { require_current_schema(conn); });
  for (const RoundPlan& plan : inputs.plans) {
    session.run([&plan](pg::Connection& conn) { load_plan(conn, plan); });
  }
  load_records(session, batches, std::move(first), report);
  for (const JobcompInput& input : inputs.jobcomp) {
    load_jobcomp(session, input, options.batch_size, report);
  }
  return report;
}

}  // namespace hetscale::collector
