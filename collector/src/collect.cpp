// Reading every input, then loading plans and record batches through a retrying session.
#include "hetscale/collector/collect.hpp"

#include <algorithm>
#include <fstream>
#include <atomic>
#include <exception>
#include <functional>
#include <future>
#include <latch>
#include <mutex>
#include <thread>
#include <ostream>

#include "hetscale/base/input_files.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/network_probes.hpp"
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
  std::size_t replaced_bytes = 0;             // bytes that were not UTF-8
  std::vector<slurm::SetAsideLine> set_aside;  // jobcomp lines that read more than one way
};

struct Inputs {
  std::vector<RoundPlan> plans;
  std::vector<RecordInput> records;
  std::vector<JobcompInput> jobcomp;
  std::vector<ProbeFile> probes;
};

bool is_plan_file(const fs::path& path) {
  return path.extension() == ".json" && !is_probe_file(path);
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
      if (is_probe_file(file)) {
        out.probes.push_back(read_probe_file(file));
      } else if (is_plan_file(file)) {
        out.plans.push_back(load_round_plan(file));
      } else {
        out.records.push_back({file.string(), read_run_records(file, on_invalid)});
      }
    }
  }
  for (const std::string& file : options.jobcomp) {
    slurm::JobcompFile read = slurm::read_jobcomp(file);
    JobcompInput& input = out.jobcomp.emplace_back(
        JobcompInput{file, std::move(read.jobs), read.replaced_bytes, std::move(read.set_aside)});
    slurm::name_unknown_clusters(input.jobs, options.cluster, file);
  }
  for (const SacctOutput& sacct : options.sacct) {
    slurm::SacctJobs read = slurm::read_sacct_json(sacct.text, sacct.source);
    out.jobcomp.push_back({sacct.source, ended_jobs(read.jobs), read.replaced_bytes, {}});
  }
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

// Each file's records in batches of at most batch_size: as many as the connections or a
// multiple of them, of sizes that differ by one record at most, so that the connections
// finish together instead of one loading a short last batch alone. A file whose records
// split into such a number of batches of batch_size gets exactly those.
std::vector<RecordBatch> record_batches(const std::vector<RecordInput>& inputs,
                                        std::size_t batch_size, std::size_t connections) {
  std::vector<RecordBatch> out;
  for (const RecordInput& input : inputs) {
    const std::span<const NumberedRunRecord> records(input.file.records);
    if (records.empty()) continue;
    const std::size_t needed = (records.size() + batch_size - 1) / batch_size;
    const std::size_t count =
        std::min(records.size(), (needed + connections - 1) / connections * connections);
    const std::size_t size = records.size() / count;
    const std::size_t larger = records.size() % count;  // the first ones get one more
    std::size_t at = 0;
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t n = size + (b < larger ? 1 : 0);
      out.push_back({&input.source, records.subspan(at, n)});
      at += n;
    }
  }
  return out;
}

// Loads the batches over `connections` sessions at once, each a thread that takes the next
// batch not taken yet, prepares it (natural keys, sorting, COPY rows; no database) and
// loads it in its own transaction, retried on its own by its session with the same
// prepared rows. While one session's batch is on the server, another prepares or loads the
// next, so that the server seldom waits for the client and a server with cores to spare
// COPYs two batches at once. Batches commit in the order they finish; each is all or
// nothing. The first error stops the others from taking a new batch and is thrown once the
// batches in flight have ended (committed or rolled back); the report counts what was
// committed.
//
// The sessions but the first start at once and prepare their first batch while `first`
// checks the schema and loads the plans (`before`); none loads a batch before that is done.
// Each prepares the next batch it took while the server loads its current one.
class RecordLoad {
 public:
  RecordLoad(const std::vector<RecordBatch>& batches, const std::string& uri,
             const CollectOptions& options, const Session::RetryLog& log)
      : batches_(batches) {
    const std::size_t threads =
        std::clamp<std::size_t>(options.connections, 1, std::max<std::size_t>(batches.size(), 1));
    sessions_.reserve(threads - 1);
    for (std::size_t i = 1; i < threads; ++i) sessions_.emplace_back(uri, options.backoff, log);
  }

  void run(Session& first, const std::function<void()>& before, CollectReport& report) {
    report_ = &report;
    {
      std::vector<std::jthread> others;
      others.reserve(sessions_.size());
      for (Session& session : sessions_) others.emplace_back([this, &session] { work(session); });
      try {
        before();
      } catch (...) {
        fail();
      }
      go_.count_down();
      work(first);
    }  // joins
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Takes batches until none is left, preparing the next one it took while the server
  // loads the one before.
  void work(Session& session) {
    try {
      std::size_t k = next_++;
      if (k >= batches_.size()) return;
      PreparedBatch batch = prepare(k);
      go_.wait();
      while (!stop_) {
        const std::size_t after = next_++;
        std::future<PreparedBatch> following;
        if (after < batches_.size())
          following = std::async(std::launch::async, [this, after] { return prepare(after); });
        BatchCounts counts;
        session.run([&](pg::Connection& conn) { counts = load_prepared_batch(conn, batch); });
        {
          const std::lock_guard lock(mutex_);
          report_->runs_added += counts.runs_added;
          report_->runs_present += counts.runs_present;
          report_->rank_rows_added += counts.rank_rows_added;
        }
        if (!following.valid()) return;
        batch = following.get();
      }
    } catch (...) {
      fail();
    }
  }

  PreparedBatch prepare(std::size_t k) const {
    return prepare_run_batch(batches_[k].records, *batches_[k].source);
  }

  void fail() {
    stop_ = true;
    const std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }

  const std::vector<RecordBatch>& batches_;
  std::vector<Session> sessions_;  // the others than `first`
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::latch go_{1};
  std::mutex mutex_;  // guards error_ and report_
  std::exception_ptr error_;
  CollectReport* report_ = nullptr;
};

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
  report.probes = inputs.probes.size();
  report.record_files = inputs.records.size();
  for (const RecordInput& input : inputs.records) report.records += input.file.records.size();
  for (const JobcompInput& input : inputs.jobcomp) {
    report.jobs_read += input.jobs.size();
    report.replaced_bytes += input.replaced_bytes;
    if (input.replaced_bytes > 0)
      log << "collect: " << input.source << ": " << input.replaced_bytes
          << " byte(s) that are not UTF-8 (in job names, submit lines, working directories, ...) read as U+FFFD\n";
    for (const slurm::SetAsideLine& line : input.set_aside)
      log << "collect: set aside " << line.where.str() << ": " << line.message << " (not stored)\n";
    report.jobs_set_aside += input.set_aside.size();
  }
  report.rejected = set_aside(inputs, options.rejects, log);
  for (const RecordInput& input : inputs.records) {
    if (input.file.held_back_line == 0) continue;
    log << "collect: held back " << input.source << ':' << input.file.held_back_line
        << ": unterminated last line (still being written?); a later collect loads it once "
           "complete\n";
    ++report.held_back;
  }

  const std::vector<RecordBatch> batches =
      record_batches(inputs.records, options.batch_size, std::max<std::size_t>(options.connections, 1));
  std::mutex log_mutex;  // sessions of several threads report retries
  const Session::RetryLog retry_log = [&log, &log_mutex](const pg::DbError& e,
                                                          std::chrono::milliseconds delay) {
    const std::lock_guard lock(log_mutex);
    log << "collect: " << e.what() << "; retrying in " << delay.count() << " ms\n";
  };
  Session session(uri, options.backoff, retry_log);
  RecordLoad(batches, uri, options, retry_log).run(session, [&] {
    session.run([](pg::Connection& conn) { require_current_schema(conn); });
    for (const RoundPlan& plan : inputs.plans) {
      session.run([&plan](pg::Connection& conn) { load_plan(conn, plan); });
    }
  }, report);
  for (const JobcompInput& input : inputs.jobcomp) {
    load_jobcomp(session, input, options.batch_size, report);
  }
  // After the plans: a probe may name an experiment a plan of this collect brings.
  for (const ProbeFile& probe : inputs.probes) {
    long long added = 0;
    session.run([&](pg::Connection& conn) { added = load_probe(conn, probe); });
    report.probes_added += added;
  }
  return report;
}

}  // namespace hetscale::collector
