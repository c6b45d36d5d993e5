// One batch of run records into hetscale.runs and hetscale.rank_timings.
#include "hetscale/collector/run_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "hetscale/base/error.hpp"
#include "hetscale/base/sha256.hpp"
#include "hetscale/collector/copy_buffer.hpp"

namespace hetscale::collector {
namespace {

// Experiments named by the batch are the current user's (docs/schema.md, "Owners and
// row-level security"): another user's experiment of the same name is never used. Those
// the user does not own yet are created (with the code, workload and, when there is only
// one, the parameter of their first record, and the first cluster a record names; a plan
// file fills in the rest), in name order: concurrent loaders lock rows in the same order.
// Loaders that create the same experiment at once (batches of one collect over several
// connections, or two collects) take its name's lock first, in name order, for the short
// transaction that creates it: the second then sees the first's experiment (a statement
// reads what was committed before the statement began) instead of creating one of its own
// on another cluster.
constexpr const char* lock_experiment_names = R"sql(
SELECT pg_advisory_xact_lock(hashtextextended('hetscale.experiments ' || current_user || ' ' || name, 0))
FROM (SELECT DISTINCT value ->> 0 AS name FROM jsonb_array_elements($1::jsonb) ORDER BY 1) names)sql";

constexpr const char* insert_experiments = R"sql(
INSERT INTO hetscale.experiments (name, code, workload, parameter, cluster)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, coalesce(value ->> 4, '')
FROM jsonb_array_elements($1::jsonb)
WHERE NOT EXISTS (SELECT FROM hetscale.experiments e
                  WHERE e.owner = current_user AND e.name = value ->> 0)
ORDER BY 1
ON CONFLICT (cluster, owner, name) DO NOTHING)sql";

// An experiment created without a cluster (from a plan file) takes the first one its run
// records name.
constexpr const char* fill_clusters = R"sql(
UPDATE hetscale.experiments e SET cluster = value ->> 4
FROM jsonb_array_elements($1::jsonb)
WHERE e.owner = current_user AND e.name = value ->> 0 AND e.cluster = ''
  AND coalesce(value ->> 4, '') <> ''
  AND NOT EXISTS (SELECT FROM hetscale.experiments o
                  WHERE o.owner = current_user AND o.name = e.name
                    AND o.cluster = value ->> 4))sql";

constexpr const char* select_experiments = R"sql(
SELECT name, experiment_id, cluster FROM hetscale.experiments
WHERE owner = current_user
  AND name IN (SELECT value FROM jsonb_array_elements_text($1::jsonb))
ORDER BY name, cluster COLLATE "C")sql";

// In one statement, what the batch needs to know before its COPYs: the keys of the batch
// already stored, then a run id for each run not stored yet, reserved from the identity's
// sequence ($3 is the number of the batch's keys). Run keys are unique per experiment, and
// only the current user's experiments of the batch's names count: another user's
// experiment of the same name may hold a run of the same key. No ids under row-level
// security: such a user cannot choose them (migration 13), the identity gives them. The
// sequence is named (migration 1 fixes its name), a constant regclass: written as
// nextval(pg_get_serial_sequence(...)) the name was looked up again for every row, which
// took 30-70 ms per 5,000 ids, as long as the COPY of the runs themselves.
constexpr const char* present_and_ids = R"sql(
WITH present AS MATERIALIZED (
  SELECT run_key FROM hetscale.runs
  WHERE run_key IN (SELECT decode(value, 'hex') FROM jsonb_array_elements_text($1::jsonb))
    AND experiment_id = ANY (ARRAY(
          SELECT experiment_id FROM hetscale.experiments
          WHERE owner = current_user
            AND name IN (SELECT value FROM jsonb_array_elements_text($2::jsonb)))))
SELECT encode(run_key, 'hex'), NULL::bigint FROM present
UNION ALL
SELECT NULL, nextval('hetscale.runs_run_id_seq'::regclass)
FROM generate_series(1, $3::integer - (SELECT count(*) FROM present)::integer)
WHERE NOT row_security_active('hetscale.runs'))sql";

constexpr const char* run_columns = R"sql(
  run_id, experiment_id, run_key, code, workload, parameters, work, wall_seconds,
  marked_speed, speed_unit, weights_source, set_index, repetition, slurm_job_id,
  slurm_array_job_id, slurm_array_task_id, slurm_step_id, node_list, start_time, end_time,
  verified, fingerprint, source_file, source_line, engine, platform_hash, slurm_cluster,
  weights_digest, timed_by, exit_status, ranks_timed_by, node_times)sql";

std::string copy_runs(std::string_view table) {
  return fmt::format("COPY {} ({}) FROM STDIN", table, run_columns);
}

// Binary: the server parses no numbers (strtod was the largest part of its COPY work after
// the indexes). run_id last, so that the prepared rest of a row is in front of it.
constexpr const char* rank_column_names = R"sql(
  rank, host, weight, marked_speed, compute_seconds, communication_seconds, wall_seconds,
  run_id)sql";
constexpr int rank_columns = 8;

std::string copy_ranks(std::string_view table) {
  return fmt::format("COPY {} ({}) FROM STDIN (FORMAT binary)", table, rank_column_names);
}

// COPY FROM refuses a table under row-level security: a user it applies to (not the
// tables' owner hetscale_admin, not a superuser) COPYs into temporary tables of the same
// columns, and INSERT ... SELECT moves the rows on through the policies. Such a user cannot
// choose run ids (migration 13): its staged runs carry their place in the batch as run_id,
// the identity gives each its id on the way into hetscale.runs, and RETURNING hands the ids
// back for the rank rows. The runs' staging table takes its columns from own_runs, which
// has every column of runs (LIKE needs the right to read the whole relation, and the
// writer may not read the private column code of runs: migration 20); the batch's COPY
// gives every column it names, so no default of runs is needed there.
constexpr const char* row_security_active = "SELECT row_security_active('hetscale.runs')";
constexpr const char* create_staging = R"sql(
CREATE TEMPORARY TABLE pg_temp.runs_staging (LIKE hetscale.own_runs) ON COMMIT DROP;
CREATE TEMPORARY TABLE pg_temp.rank_timings_staging (LIKE hetscale.rank_timings) ON COMMIT DROP)sql";
// The run columns but run_id.
std::string_view run_columns_but_id() {
  std::string_view columns = run_columns;
  return columns.substr(columns.find(',') + 1);
}
std::string insert_staged_runs() {
  return fmt::format(
      "INSERT INTO hetscale.runs ({0}) SELECT {0} FROM pg_temp.runs_staging ORDER BY run_id "
      "RETURNING encode(run_key, 'hex'), run_id",
      run_columns_but_id());
}
std::string insert_staged_ranks() {
  return fmt::format(
      "INSERT INTO hetscale.rank_timings ({0}) SELECT {0} FROM pg_temp.rank_timings_staging",
      rank_column_names);
}

// A record with its natural key.
struct Keyed {
  const NumberedRunRecord* numbered;
  std::string key;  // hex SHA-256 of run_identity()
};

void optional_integer(pg::CopyBuffer& out, const std::optional<std::uint64_t>& value) {
  if (value) {
    out.integer(static_cast<long long>(*value));
  } else {
    out.null();
  }
}

void optional_text(pg::CopyBuffer& out, const std::string& value) {
  if (value.empty()) {
    out.null();
  } else {
    out.text(value);
  }
}

nlohmann::json parameters_json(const ParameterValues& parameters) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : parameters) out[name] = value;
  return out;
}

// A runs row from run_key on (run_id and experiment_id come first, from the database).
void run_row_rest(pg::CopyBuffer& out, const Keyed& keyed, const std::string& source) {
  const RunRecord& r = keyed.numbered->record;
  out.text("\\x" + keyed.key);  // bytea in hex form
  out.text(r.code);
  out.text(r.workload);
  out.text(parameters_json(r.parameters).dump());
  out.number(r.work);
  out.number(r.wall_seconds);
  out.number(r.marked_speed);
  out.text(r.speed_unit);
  out.text(r.weights_source);
  if (r.machine_set) {
    out.integer(*r.machine_set);
  } else {
    out.null();
  }
  out.integer(r.repetition);
  optional_integer(out, r.slurm.job_id);
  optional_integer(out, r.slurm.array_job_id);
  optional_integer(out, r.slurm.array_task_id);
  optional_integer(out, r.slurm.step_id);
  out.text(r.slurm.node_list);
  optional_text(out, r.start_time);
  optional_text(out, r.end_time);
  out.text(r.verified ? "t" : "f");
  out.text(r.fingerprint.dump());
  out.text(source);
  out.integer(keyed.numbered->line);
  out.text(run_engine(r));
  if (r.platform_hash) {
    out.text(*r.platform_hash);
  } else {
    out.null();
  }
  if (r.slurm.cluster) {
    out.text(*r.slurm.cluster);
  } else {
    out.null();
  }
  if (r.weights_digest) {
    out.text(*r.weights_digest);
  } else {
    out.null();
  }
  out.text(run_timed_by(r));
  if (r.exit_status) {
    out.integer(*r.exit_status);
  } else {
    out.null();
  }
  optional_text(out, r.ranks_timed_by.value_or(""));
  if (r.node_times.empty()) {
    out.null();
  } else {
    out.text(node_times_json(r.node_times).dump());
  }
  out.end_row();
}

// The rank_timings rows of one run but for their last field, run_id (from the database).
void rank_rows_but_id(pg::BinaryCopyBuffer& out, const RunRecord& record) {
  for (const RankTiming& t : record.ranks) {
    out.start_row(rank_columns);
    out.int4(t.rank);
    out.text(t.host);
    out.float8(t.weight);
    out.float8(t.marked_speed);
    out.float8(t.compute_seconds);
    out.float8(t.communication_seconds);
    out.float8(t.wall_seconds);
  }
}

// The size of one row from rank_rows_but_id: field count, then length and value of each.
std::size_t rank_row_size_but_id(const RankTiming& t) {
  return 2 + (4 + 4) + (4 + t.host.size()) + 5 * (4 + 8);
}

}  // namespace

std::string run_identity(const RunRecord& r) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const RankTiming& t : r.ranks) hosts.push_back(t.host);
  const auto id = [](const std::optional<std::uint64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  // An array, so that the order is fixed; parameters are a sorted object already.
  nlohmann::json identity = {
      r.experiment,
      r.code,
      r.workload,
      parameters_json(r.parameters),
      r.machine_set ? nlohmann::json(*r.machine_set) : nlohmann::json(nullptr),
      r.repetition,
      id(r.slurm.job_id),
      id(r.slurm.array_job_id),
      id(r.slurm.array_task_id),
      id(r.slurm.step_id),
      r.slurm.node_list,
      r.start_time,
      r.end_time,
      hosts};
  // A run of another engine, or one with a platform hash, adds both: a twin run and the
  // real run it mirrors are two runs. A Slurm run without a hash has the fields above
  // alone: its key does not depend on whether its record names its engine, and rows
  // stored without an engine keep their keys.
  if (run_engine(r) != "slurm" || r.platform_hash) {
    identity.push_back(std::string(run_engine(r)));
    identity.push_back(r.platform_hash ? nlohmann::json(*r.platform_hash)
                                       : nlohmann::json(nullptr));
  }
  // The cluster, when the record names it, as an object (no other element is one): the
  // same job id on two clusters is two runs, and records without it keep their keys.
  if (r.slurm.cluster) identity.push_back(nlohmann::json{{"cluster", *r.slurm.cluster}});
  return identity.dump();
}

namespace {

// Sorted by key, one per key (the first line wins): loaders that meet on the same runs
// insert them in the same order, so one waits for the other instead of deadlocking.
std::vector<Keyed> keyed_records(std::span<const NumberedRunRecord> records) {
  std::vector<Keyed> out;
  out.reserve(records.size());
  for (const NumberedRunRecord& r : records)
    out.push_back({&r, to_hex(sha256(run_identity(r.record)))});
  std::stable_sort(out.begin(), out.end(),
                   [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Keyed& a, const Keyed& b) { return a.key == b.key; }),
            out.end());
  return out;
}

// Experiments named by the batch as [name, code, workload, parameter, cluster] rows (from
// the first record naming each; the cluster from the first that names one, else null), and
// their names, in name order.
void experiment_rows(const std::vector<Keyed>& runs, PreparedBatch& out) {
  std::map<std::string, nlohmann::json> first;
  for (const Keyed& k : runs) {
    const RunRecord& r = k.numbered->record;
    if (const auto at = first.find(r.experiment); at != first.end()) {
      if (at->second[4].is_null() && r.slurm.cluster) at->second[4] = *r.slurm.cluster;
      continue;
    }
    const nlohmann::json parameter = r.parameters.size() == 1
                                         ? nlohmann::json(r.parameters.begin()->first)
                                         : nlohmann::json(nullptr);
    const nlohmann::json cluster =
        r.slurm.cluster ? nlohmann::json(*r.slurm.cluster) : nlohmann::json(nullptr);
    first.emplace(r.experiment,
                  nlohmann::json{r.experiment, r.code, r.workload, parameter, cluster});
  }
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [name, row] : first) {
    rows.push_back(row);
    names.push_back(name);
  }
  out.experiment_rows = rows.dump();
  out.experiment_names = names.dump();
}

// The current user's experiments of the batch's names (select_experiments), by name.
std::map<std::string, std::string, std::less<>> experiment_ids(const pg::Result& r) {
  std::map<std::string, std::string, std::less<>> ids;
  for (int i = 0; i < r.rows(); ++i) {
    if (!ids.emplace(r.text(i, 0), r.text(i, 1)).second)
      throw Error(fmt::format(
          "you own several experiments named '{}' (on different clusters, '{}' and '{}'); "
          "its runs cannot say which they belong to",
          r.text(i, 0), r.text(i - 1, 2), r.text(i, 2)));
  }
  return ids;
}

// The runs of the batch not stored yet (present_and_ids), in key order: their indexes into
// batch.runs and their ids, reserved, or (staged) their places in this list.
struct FreshRuns {
  std::vector<std::size_t> at;
  std::vector<long long> ids;
};

FreshRuns fresh_runs_of(const PreparedBatch& batch, const pg::Result& r, bool staged) {
  std::unordered_set<std::string_view> present;
  std::vector<long long> reserved;
  for (int row = 0; row < r.rows(); ++row) {
    if (r.is_null(row, 0)) {
      reserved.push_back(r.integer(row, 1));
    } else {
      present.emplace(r.text(row, 0));
    }
  }
  FreshRuns out;
  out.at.reserve(batch.runs.size() - std::min(present.size(), batch.runs.size()));
  for (std::size_t i = 0; i < batch.runs.size(); ++i) {
    if (present.count(batch.runs[i].key) == 0) out.at.push_back(i);
  }
  if (staged) {
    for (std::size_t i = 0; i < out.at.size(); ++i) out.ids.push_back(static_cast<long long>(i));
  } else if (reserved.size() == out.at.size()) {
    out.ids = std::move(reserved);
  } else {
    throw Error(fmt::format("collect: the database reserved {} run ids for {} new runs",
                            reserved.size(), out.at.size()));
  }
  return out;
}

// The prepared rank rows of one run, each followed by its run_id field.
void append_rank_rows(pg::BinaryCopyBuffer& out, std::string& copy, const RunRecord& record,
                      std::string_view rows, long long run_id) {
  out.int8(run_id);
  const std::string_view id_field = std::string_view(out.data()).substr(out.data().size() - 12);
  for (const RankTiming& t : record.ranks) {
    const std::size_t size = rank_row_size_but_id(t);
    copy.append(rows.substr(0, size)).append(id_field);
    rows.remove_prefix(size);
  }
}

}  // namespace

PreparedBatch prepare_run_batch(std::span<const NumberedRunRecord> records,
                                const std::string& source) {
  const std::vector<Keyed> keyed = keyed_records(records);
  PreparedBatch out;
  out.records = records.size();
  experiment_rows(keyed, out);
  out.runs.reserve(keyed.size());
  out.keys.reserve(keyed.size() * 67 + 2);
  out.keys += '[';
  for (const Keyed& k : keyed) {
    if (out.keys.size() > 1) out.keys += ',';
    out.keys.append(1, '"').append(k.key).append(1, '"');  // hex: nothing to escape
    run_row_rest(out.run_rows, k, source);
    rank_rows_but_id(out.rank_rows, k.numbered->record);
    out.runs.push_back(
        {&k.numbered->record, k.key, out.run_rows.data().size(), out.rank_rows.data().size()});
  }
  out.keys += ']';
  return out;
}

// Plain COPY into runs and rank_timings with reserved ids (the owner: no row-level
// security), or, under row-level security, COPY into staging tables and INSERT ... SELECT
// with ids from the identity. No staging for the owner: the unique run_key refuses a run
// that another loader stored meanwhile, and the batch is retried. Only the ids and
// experiment ids are put in here; the rest of each row was prepared.
BatchCounts load_prepared_batch(pg::Connection& conn, const PreparedBatch& batch) {
  // Everything before the COPYs in one round trip: the batch's experiments are created
  // and completed in a transaction of their own (under their names' locks), committed at once, so that loaders of
  // batches naming the same new experiment (other sessions of this collect, or another
  // collect) wait for that short transaction only, not for a whole batch; an experiment
  // without runs is harmless (plans create them too). Then the batch's transaction begins,
  // reads the experiments, whether row-level security applies, the keys already stored
  // and the ids of the runs not stored yet.
  std::vector<pg::Statement> statements = pg::begin_statements(pg::TransactionMode::load);
  statements.push_back({lock_experiment_names, {batch.experiment_rows}});
  statements.push_back({insert_experiments, {batch.experiment_rows}});
  statements.push_back({fill_clusters, {batch.experiment_rows}});
  statements.push_back({"COMMIT", {}});
  for (pg::Statement& begin : pg::begin_statements(pg::TransactionMode::load))
    statements.push_back(std::move(begin));
  const std::size_t first = statements.size();
  statements.push_back({select_experiments, {batch.experiment_names}});
  statements.push_back({row_security_active, {}});
  statements.push_back(
      {present_and_ids, {batch.keys, batch.experiment_names, std::to_string(batch.runs.size())}});
  pg::Transaction tx(conn, pg::BeganInPipeline{});
  const std::vector<pg::Result> results = conn.exec_pipeline(statements);
  const auto experiments = experiment_ids(results[first]);
  const bool staged = results[first + 1].text(0, 0) == "t";
  const FreshRuns fresh_runs = fresh_runs_of(batch, results[first + 2], staged);
  const std::vector<std::size_t>& fresh = fresh_runs.at;
  BatchCounts out;
  if (!fresh.empty()) {
    const std::string_view run_rows = batch.run_rows.data();
    const std::string_view rank_rows = batch.rank_rows.data();
    const auto run_begin = [&](std::size_t at) {
      return at == 0 ? std::size_t{0} : batch.runs[at - 1].run_rows_end;
    };
    const auto ranks_begin = [&](std::size_t at) {
      return at == 0 ? std::size_t{0} : batch.runs[at - 1].rank_rows_end;
    };
    // The runs' COPY text, each row with the id ids[i] (reserved, or the place in the batch).
    const auto runs_copy_with = [&](const std::vector<long long>& ids) {
      std::string runs_copy;
      runs_copy.reserve(run_rows.size() + fresh.size() * 32);
      for (std::size_t i = 0; i < fresh.size(); ++i) {
        const std::size_t at = fresh[i];
        const PreparedBatch::Run& run = batch.runs[at];
        runs_copy.append(std::to_string(ids[i])).append(1, '\t');
        runs_copy.append(experiments.at(run.record->experiment)).append(1, '\t');
        runs_copy.append(run_rows.substr(run_begin(at), run.run_rows_end - run_begin(at)));
      }
      return runs_copy;
    };
    const auto ranks_copy_with = [&](const std::vector<long long>& ids) {
      std::string ranks_copy;
      ranks_copy.reserve(rank_rows.size() + rank_rows.size() / 4);
      ranks_copy.append(pg::BinaryCopyBuffer::header());
      pg::BinaryCopyBuffer id_fields;  // the run_id fields, each appended to its rows
      for (std::size_t i = 0; i < fresh.size(); ++i) {
        const std::size_t at = fresh[i];
        const PreparedBatch::Run& run = batch.runs[at];
        append_rank_rows(id_fields, ranks_copy, *run.record,
                         rank_rows.substr(ranks_begin(at), run.rank_rows_end - ranks_begin(at)),
                         ids[i]);
      }
      ranks_copy.append(pg::BinaryCopyBuffer::trailer());
      return ranks_copy;
    };
    std::vector<long long> ids = fresh_runs.ids;
    if (staged) {
      conn.exec(create_staging);
      conn.copy_in(copy_runs("pg_temp.runs_staging"), runs_copy_with(ids));
      const pg::Result inserted = conn.exec(insert_staged_runs());
      std::unordered_map<std::string_view, long long> by_key;
      by_key.reserve(static_cast<std::size_t>(inserted.rows()));
      for (int r = 0; r < inserted.rows(); ++r)
        by_key.emplace(inserted.text(r, 0), inserted.integer(r, 1));
      for (std::size_t i = 0; i < fresh.size(); ++i) {
        const auto found = by_key.find(batch.runs[fresh[i]].key);
        if (found == by_key.end())
          throw Error("collect: the database returned no id for run " + batch.runs[fresh[i]].key);
        ids[i] = found->second;
      }
      conn.copy_in(copy_ranks("pg_temp.rank_timings_staging"), ranks_copy_with(ids));
      conn.exec(insert_staged_ranks());
    } else {
      conn.copy_in(copy_runs("hetscale.runs"), runs_copy_with(ids));
      conn.copy_in(copy_ranks("hetscale.rank_timings"), ranks_copy_with(ids));
    }
    for (const std::size_t at : fresh)
      out.rank_rows_added += static_cast<long long>(batch.runs[at].record->ranks.size());
  }
  tx.commit();
  out.runs_added = static_cast<long long>(fresh.size());
  out.runs_present = static_cast<long long>(batch.records) - out.runs_added;
  return out;
}

BatchCounts load_run_batch(pg::Connection& conn, std::span<const NumberedRunRecord> records,
                           const std::string& source) {
  return load_prepared_batch(conn, prepare_run_batch(records, source));
}

}  // namespace hetscale::collector
