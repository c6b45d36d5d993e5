// Reading every input, then loading plans and record batches through a retrying session.
#include "hetscale/collector/collect.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>

#include "hetscale/collector/jobcomp.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/collector/run_loader.hpp"
#include "hetscale/run_record_reader.hpp"
#include "hetscale/study_plan.hpp"

namespace hetscale::collector {
namespace {

namespace fs = std::filesystem;

struct RecordInput {
  std::string source;  // file name, or "<stdin>"
  RunRecordFile file;
};

struct JobcompInput {
  std::string source;
  std::vector<JobCompletion> jobs;
};

struct Inputs {
  std::vector<StudyPlan> plans;
  std::vector<RecordInput> records;
  std::vector<JobcompInput> jobcomp;
};

bool is_plan_file(const fs::path& path) {
  return path.extension() == ".json";
}

// Directories give their *.json and *.jsonl files, recursively, in name order.
std::vector<fs::path> expand(const std::string& input) {
  const fs::path path(input);
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(path)) {
    const fs::path& p = entry.path();
    if (entry.is_regular_file() && (p.extension() == ".json" || p.extension() == ".jsonl")) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

Inputs read_inputs(const CollectOptions& options, std::istream& stdin_stream) {
  const OnInvalid on_invalid = options.skip_invalid ? OnInvalid::skip : OnInvalid::fail;
  Inputs out;
  for (const std::string& input : options.inputs) {
    if (input == "-") {
      out.records.push_back({"<stdin>", read_run_records(stdin_stream, "<stdin>", on_invalid)});
      continue;
    }
    for (const fs::path& file : expand(input)) {
      if (is_plan_file(file)) {
        out.plans.push_back(load_study_plan(file));
      } else {
        out.records.push_back({file.string(), read_run_records(file, on_invalid)});
      }
    }
  }
  for (const std::string& file : options.jobcomp) out.jobcomp.push_back({file, read_jobcomp(file)});
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

void load_records(Session& session, const RecordInput& input, std::size_t batch_size,
                  CollectReport& report) {
  const std::vector<NumberedRunRecord>& records = input.file.records;
  for (std::size_t at = 0; at < records.size(); at += batch_size) {
    const std::span<const NumberedRunRecord> batch(records.data() + at,
                                                   std::min(batch_size, records.size() - at));
    BatchCounts counts;
    session.run([&](pg::Connection& conn) { counts = load_run_batch(conn, batch, input.source); });
    report.runs_added += counts.runs_added;
    report.runs_present += counts.runs_present;
    report.rank_rows_added += counts.rank_rows_added;
  }
}

void load_jobcomp(Session& session, const JobcompInput& input, std::size_t batch_size,
                  CollectReport& report) {
  const std::vector<JobCompletion>& jobs = input.jobs;
  for (std::size_t at = 0; at < jobs.size(); at += batch_size) {
    const std::span<const JobCompletion> batch(jobs.data() + at,
                                               std::min(batch_size, jobs.size() - at));
    long long added = 0;
    session.run([&](pg::Connection& conn) {
      pg::Transaction tx(conn);
      added = load_jobcomp_batch(conn, batch, input.source);
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

  Session session(uri, options.backoff,
                  [&log](const pg::DbError& e, std::chrono::milliseconds delay) {
                    log << "collect: " << e.what() << "; retrying in " << delay.count() << " ms\n";
                  });
  session.run([](pg::Connection& conn) { require_current_schema(conn); });
  for (const StudyPlan& plan : inputs.plans) {
    session.run([&plan](pg::Connection& conn) { load_plan(conn, plan); });
  }
  for (const RecordInput& input : inputs.records) {
    load_records(session, input, options.batch_size, report);
  }
  for (const JobcompInput& input : inputs.jobcomp) {
    load_jobcomp(session, input, options.batch_size, report);
  }
  return report;
}

}  // namespace hetscale::collector
