// Prints the collector's loading rate (rank rows per second) for run records of 8 ranks
// each, and psql's \copy of the same rows from CSV, measured in the same run
// (docs/collector.md, docs/performance.md): as the superuser (plain COPY into the tables),
// and as a plain writer login set up by db/add_login.sql, under row-level security, whose
// \copy goes into temporary tables and on with INSERT ... SELECT, as the collector's.
// Usage:
//   bench_collector_load URI [RECORDS]      URI of a server where databases may be created,
//                                           as its superuser
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "hetscale/base/sha256.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/collector/run_loader.hpp"
#include "hetscale/site/run_record_reader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace hetscale;
using Clock = std::chrono::steady_clock;

constexpr int ranks_per_record = 8;

std::string with_database(const std::string& uri, const std::string& database) {
  const auto query = uri.find('?');
  const std::string base = uri.substr(0, query);
  const std::string rest = query == std::string::npos ? "" : uri.substr(query);
  const auto slash = base.find('/', base.find("://") + 3);
  return (slash == std::string::npos ? base : base.substr(0, slash)) + "/" + database + rest;
}

std::string record_line(int i) {
  std::ostringstream out;
  out.precision(17);
  out << R"({"schema":1,"experiment":"bench","code":"mm","workload":"2*N^3","parameters":{"N":)"
      << 100 + i << R"(},"work":)" << 2e6 + i << R"(,"wall_seconds":1.25,"marked_speed":160,)"
      << R"("speed_unit":"Mflops","weights_source":"marked","ranks":[)";
  for (int r = 0; r < ranks_per_record; ++r) {
    out << (r ? "," : "") << R"({"rank":)" << r << R"(,"host":"node-)" << r + 1
        << R"(","weight":0.125,"marked_speed":20,"compute_seconds":)" << 1.0 + r * 1e-3
        << R"(,"communication_seconds":0.2,"wall_seconds":1.25})";
  }
  out << R"(],"slurm":{"job_id":)" << 5000 + i << R"(,"array_job_id":4999,"array_task_id":)" << i
      << R"(,"step_id":0,"node_list":"node-[1-8]"},"machine_set":2,"repetition":0,)"
      << R"("start_time":"2026-11-21T06:00:00Z","end_time":"2026-11-21T06:00:01.25Z",)"
      << R"("verified":true,"fingerprint":{"software":{"hetscale":"0.1.0"}}})";
  return out.str();
}

// The same rows as the collector writes them (rank_timings, and runs), as CSV for psql.
void write_files(const fs::path& jsonl, const fs::path& csv, const fs::path& runs_csv,
                 int records) {
  std::ofstream lines(jsonl, std::ios::binary);
  std::ofstream rows(csv, std::ios::binary);
  std::ofstream runs(runs_csv, std::ios::binary);
  rows.precision(17);
  runs.precision(17);
  for (int i = 0; i < records; ++i) {
    lines << record_line(i) << '\n';
    const RunRecord record = run_record_from_json(nlohmann::json::parse(record_line(i)));
    runs << i + 1 << ",\\x" << to_hex(sha256(collector::run_identity(record)))
         << ",1,mm,2*N^3,\"{\"\"N\"\": " << 100 + i << "}\"," << 2e6 + i
         << ",1.25,160,Mflops,marked,2,0," << 5000 + i << ",4999," << i
         << ",0,node-[1-8],2026-11-21T06:00:00Z,2026-11-21T06:00:01.25Z,t,"
         << "\"{\"\"software\"\": {\"\"hetscale\"\": \"\"0.1.0\"\"}}\",runs.jsonl," << i + 1
         << '\n';
    for (int r = 0; r < ranks_per_record; ++r) {
      rows << i + 1 << ',' << r << ",node-" << r + 1 << ",0.125,20," << 1.0 + r * 1e-3
           << ",0.2,1.25\n";
    }
  }
}

struct Database {
  std::string server;
  std::string name;
  std::string uri;
  Database(std::string server_uri, std::string db)
      : server(std::move(server_uri)), name(std::move(db)) {
    pg::Connection::open(server).exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    pg::Connection::open(server).exec("CREATE DATABASE " + name);
    uri = with_database(server, name);
    pg::Connection conn = pg::Connection::open(uri);
    collector::migrate(conn);
    // psql's target: rank_timings' columns, primary key and checks (LIKE copies no FK).
    conn.exec("CREATE TABLE public.psql_rank_timings (LIKE hetscale.rank_timings INCLUDING ALL)");
    conn.exec("CREATE TABLE public.psql_runs (LIKE hetscale.runs INCLUDING ALL)");
  }
  ~Database() {
    try {
      pg::Connection::open(server).exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (const std::exception&) {
    }
  }
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double time_collector(const std::string& uri, const fs::path& jsonl,
                      std::size_t connections = collector::CollectOptions{}.connections) {
  collector::CollectOptions options;
  options.inputs = {jsonl.string()};
  options.connections = connections;
  std::istringstream no_stdin;
  std::ostringstream log;
  const auto start = Clock::now();
  const auto report = collector::collect(uri, options, no_stdin, log);
  const double s = seconds_since(start);
  if (report.rank_rows_added == 0) throw Error("bench: nothing loaded");
  return s;
}

// Reading and validating alone, without a database.
double time_parse(const fs::path& jsonl) {
  const auto start = Clock::now();
  const RunRecordFile file = read_run_records(jsonl, OnInvalid::fail);
  const double s = seconds_since(start);
  if (file.records.empty()) throw Error("bench: nothing read");
  return s;
}

// A writer login (db/add_login.sql, run by psql as the superuser) of the database.
std::string add_writer(const std::string& uri, const std::string& login) {
  const std::string command = "psql -X -q -v ON_ERROR_STOP=1 -d '" + uri + "' -v login=" +
                              login + " -v kind=writer -f '" HETSCALE_SOURCE_DIR
                              "/db/add_login.sql' >/dev/null";
  if (std::system(command.c_str()) != 0) throw Error("bench: db/add_login.sql failed");
  const auto at = uri.find("://");
  const auto user_end = uri.find('@', at);
  return uri.substr(0, at + 3) + login + uri.substr(user_end);
}

// The writer's psql: its experiment, the runs and rank rows \copied into temporary tables
// and moved on with INSERT ... SELECT through row-level security, the ids from the identity
// (rank rows find theirs by run key), in one transaction.
double time_psql_writer(const std::string& writer_uri, const fs::path& csv,
                        const fs::path& runs_csv, const fs::path& script) {
  const std::string runs_columns =
      "run_key, experiment_id, code, workload, parameters, work, wall_seconds, marked_speed, "
      "speed_unit, weights_source, set_index, repetition, slurm_job_id, slurm_array_job_id, "
      "slurm_array_task_id, slurm_step_id, node_list, start_time, end_time, verified, "
      "fingerprint, source_file, source_line";
  std::ofstream out(script);
  out << "INSERT INTO hetscale.experiments (name, code, workload, parameter) "
         "VALUES ('bench', 'mm', '2*N^3', 'N');\n"
      << "CREATE TEMPORARY TABLE runs_staging (LIKE hetscale.runs INCLUDING DEFAULTS) "
         "ON COMMIT DROP;\n"
      << "CREATE TEMPORARY TABLE rank_timings_staging (LIKE hetscale.rank_timings) "
         "ON COMMIT DROP;\n"
      << "\\copy runs_staging (run_id, " << runs_columns << ") FROM '" << runs_csv.string()
      << "' WITH (FORMAT csv)\n"
      << "INSERT INTO hetscale.runs (" << runs_columns << ") SELECT " << runs_columns
      << " FROM runs_staging ORDER BY run_id;\n"
      << "\\copy rank_timings_staging FROM '" << csv.string() << "' WITH (FORMAT csv)\n"
      << "INSERT INTO hetscale.rank_timings (run_id, rank, host, weight, marked_speed, "
         "compute_seconds, communication_seconds, wall_seconds) "
         "SELECT r.run_id, k.rank, k.host, k.weight, k.marked_speed, k.compute_seconds, "
         "k.communication_seconds, k.wall_seconds FROM rank_timings_staging k "
         "JOIN runs_staging s ON s.run_id = k.run_id "
         "JOIN hetscale.runs r ON r.experiment_id = s.experiment_id AND r.run_key = s.run_key;\n";
  out.close();
  const std::string command = "psql -X -q -1 -v ON_ERROR_STOP=1 -d '" + writer_uri + "' -f '" +
                              script.string() + "' >/dev/null";
  const auto start = Clock::now();
  if (std::system(command.c_str()) != 0) throw Error("bench: the writer's psql \\copy failed");
  return seconds_since(start);
}

double time_psql(const std::string& uri, const fs::path& csv, const fs::path* runs_csv) {
  std::string command = "psql -X -q -v ON_ERROR_STOP=1 -d '" + uri + "'";
  if (runs_csv != nullptr) {
    command +=
        " -c \"\\copy public.psql_runs (run_id, run_key, experiment_id, code, workload, "
        "parameters, work, wall_seconds, marked_speed, speed_unit, weights_source, "
        "set_index, repetition, slurm_job_id, slurm_array_job_id, slurm_array_task_id, "
        "slurm_step_id, node_list, start_time, end_time, verified, fingerprint, "
        "source_file, source_line) FROM '" +
        runs_csv->string() + "' WITH (FORMAT csv)\"";
  }
  command +=
      " -c \"\\copy public.psql_rank_timings FROM '" + csv.string() + "' WITH (FORMAT csv)\"";
  const auto start = Clock::now();
  if (std::system(command.c_str()) != 0) throw Error("bench: psql \\copy failed");
  return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_collector_load URI [RECORDS]\n";
    return 2;
  }
  const std::string server = argv[1];
  const int records = argc > 2 ? std::atoi(argv[2]) : 12500;
  const long long rows = static_cast<long long>(records) * ranks_per_record;
  const fs::path dir = fs::temp_directory_path() / ("hetscale-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  try {
    write_files(dir / "runs.jsonl", dir / "ranks.csv", dir / "runs.csv", records);
    const fs::path runs_csv = dir / "runs.csv";
    std::printf("%-34s %10s %10s %14s\n", "loader", "rows", "seconds", "rank rows/s");
    double best_collector = 1e300;
    double best_collector_one = 1e300;
    double best_psql = 1e300;
    double best_psql_both = 1e300;
    double best_collector_writer = 1e300;
    double best_psql_writer = 1e300;
    const std::string writer = "hetscale_bench_writer_" + std::to_string(::getpid());
    for (int round = 0; round < 3; ++round) {  // best of three, each on a fresh database
      Database db(server, "hetscale_bench_" + std::to_string(::getpid()));
      const double c = time_collector(db.uri, dir / "runs.jsonl");
      const double p = time_psql(db.uri, dir / "ranks.csv", nullptr);
      Database fresh(server, "hetscale_bench_psql_" + std::to_string(::getpid()));
      const double both = time_psql(fresh.uri, dir / "ranks.csv", &runs_csv);
      Database single(server, "hetscale_bench_single_" + std::to_string(::getpid()));
      const double one = time_collector(single.uri, dir / "runs.jsonl", 1);
      const double r = time_parse(dir / "runs.jsonl");
      std::printf("%-34s %10lld %10.3f %14.0f\n", "  of which reading JSONL", rows, r, rows / r);
      std::printf("%-34s %10lld %10.3f %14.0f\n", "hetscale collect (JSONL, 8 ranks)", rows, c,
                  rows / c);
      std::printf("%-34s %10lld %10.3f %14.0f\n", "psql \\copy (CSV, rank rows only)", rows, p,
                  rows / p);
      std::printf("%-34s %10lld %10.3f %14.0f\n", "  the same over one connection", rows, one,
                  rows / one);
      best_collector = std::min(best_collector, c);
      best_collector_one = std::min(best_collector_one, one);
      std::printf("%-34s %10lld %10.3f %14.0f\n", "psql \\copy (CSV, runs + rank rows)", rows, both,
                  rows / both);
      best_psql = std::min(best_psql, p);
      best_psql_both = std::min(best_psql_both, both);
      {
        Database w(server, "hetscale_bench_writer_" + std::to_string(::getpid()));
        const double cw = time_collector(add_writer(w.uri, writer), dir / "runs.jsonl");
        std::printf("%-34s %10lld %10.3f %14.0f\n", "hetscale collect as a writer", rows, cw,
                    rows / cw);
        best_collector_writer = std::min(best_collector_writer, cw);
      }
      {
        Database w(server, "hetscale_bench_writer_psql_" + std::to_string(::getpid()));
        const double pw = time_psql_writer(add_writer(w.uri, writer), dir / "ranks.csv", runs_csv,
                                           dir / "writer.sql");
        std::printf("%-34s %10lld %10.3f %14.0f\n", "psql \\copy as a writer (staged)", rows, pw,
                    rows / pw);
        best_psql_writer = std::min(best_psql_writer, pw);
      }
    }
    std::printf(
        "best of 3: collect %.0f rank rows/s; psql \\copy rank rows only %.0f/s (ratio %.2f), "
        "runs + rank rows %.0f/s (ratio %.2f)\n",
        rows / best_collector, rows / best_psql, best_psql / best_collector, rows / best_psql_both,
        best_psql_both / best_collector);
    std::printf("best of 3 over one connection: collect %.0f rank rows/s (ratio %.2f to runs + rank rows)\n",
                rows / best_collector_one, best_psql_both / best_collector_one);
    std::printf(
        "best of 3 as a writer: collect %.0f rank rows/s; psql \\copy (staged, runs + rank "
        "rows) %.0f/s (ratio %.2f)\n",
        rows / best_collector_writer, rows / best_psql_writer,
        best_psql_writer / best_collector_writer);
    pg::Connection::open(server).exec("DROP ROLE IF EXISTS " + writer);
  } catch (const std::exception& e) {
    std::cerr << "bench_collector_load: " << e.what() << '\n';
    fs::remove_all(dir);
    return 1;
  }
  fs::remove_all(dir);
  return 0;
}
