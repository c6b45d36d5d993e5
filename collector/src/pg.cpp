// The libpq RAII layer: connection, results, parameters, COPY, transactions.
#include "hetscale/collector/pg.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace hetscale::pg {
namespace {

std::string trimmed(const char* message) {
  std::string s = message == nullptr ? std::string() : std::string(message);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void ignore_notice(void*, const char*) {}  // NOTICEs ("already exists, skipping") are noise

// Class 08 (connection exception), 57P01-03 (server shutting down or starting).
bool connection_sqlstate(const std::string& state) {
  return state.rfind("08", 0) == 0 || state == "57P01" || state == "57P02" || state == "57P03";
}

// libpq's own parse messages quote what they could not read ('missing "=" after "w" in
// connection info string'), which may be a piece of a password: that piece is dropped.
std::string parse_error(const char* message) {
  std::string s = trimmed(message);
  if (s.rfind("missing \"=\" after", 0) == 0) s = "missing \"=\" after a keyword";
  return "database: invalid connection string: " + s;
}

struct FreeOptions {
  void operator()(PQconninfoOption* options) const noexcept { PQconninfoFree(options); }
};

// Every session's settings, sent once right after connecting (Connection::open).
constexpr const char* session_settings =
    "SET client_encoding = 'UTF8'; SET search_path = pg_catalog, pg_temp";

}  // namespace

ConnectionOptions connection_options(const std::string& conninfo) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, FreeOptions> parsed(PQconninfoParse(conninfo.c_str(), &error));
  if (!parsed) {
    const std::string message = parse_error(error);
    PQfreemem(error);
    throw DbError(message, "", false);
  }
  ConnectionOptions out;
  for (const PQconninfoOption* o = parsed.get(); o->keyword != nullptr; ++o) {
    if (o->val != nullptr) out.emplace_back(o->keyword, o->val);
  }
  const auto given = [&out](std::string_view keyword) {
    return std::any_of(out.begin(), out.end(), [&](const auto& kv) { return kv.first == keyword; });
  };
  static constexpr std::pair<const char*, const char*> defaults[] = {
      {"connect_timeout", "10"},
      {"keepalives", "1"},
      {"keepalives_idle", "30"},
      {"keepalives_interval", "10"},
      {"keepalives_count", "3"},
      {"tcp_user_timeout", "60000"},
      {"fallback_application_name", "hetscale"}};
  for (const auto& [keyword, value] : defaults) {
    if (given(keyword)) continue;
    if (std::string_view(keyword) == "connect_timeout" &&
        std::getenv("PGCONNECT_TIMEOUT") != nullptr)
      continue;
    out.emplace_back(keyword, value);
  }
  return out;
}

DbError::DbError(const std::string& message, std::string sqlstate, bool connection_lost)
    : Error(message), sqlstate_(std::move(sqlstate)), connection_lost_(connection_lost) {}

bool DbError::retryable() const noexcept {
  // 23505: another loader stored the same run first; the retry sees it and skips it.
  // 55P03: lock_timeout while another loader held the rows; by the retry it may be done.
  return connection_lost_ || connection_sqlstate(sqlstate_) || sqlstate_ == "40001" ||
         sqlstate_ == "40P01" || sqlstate_ == "23505" || sqlstate_ == "55P03";
}

void Result::Clear::operator()(pg_result* result) const noexcept {
  PQclear(result);
}

int Result::rows() const noexcept {
  return PQntuples(result_.get());
}
int Result::columns() const noexcept {
  return PQnfields(result_.get());
}

bool Result::is_null(int row, int column) const noexcept {
  return PQgetisnull(result_.get(), row, column) == 1;
}

std::string_view Result::text(int row, int column) const noexcept {
  return {PQgetvalue(result_.get(), row, column),
          static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
}

long long Result::integer(int row, int column) const {
  const std::string_view s = text(row, column);
  long long value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (is_null(row, column) || ec != std::errc() || end != s.data() + s.size()) {
    throw DbError("database: expected an integer, got '" + std::string(s) + "'", "", false);
  }
  return value;
}

double Result::number(int row, int column) const {
  if (is_null(row, column)) throw DbError("database: expected a number, got NULL", "", false);
  const std::string s(text(row, column));
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);  // also reads "Infinity", "NaN"
  if (end != s.c_str() + s.size()) {
    throw DbError("database: expected a number, got '" + s + "'", "", false);
  }
  return value;
}

std::optional<double> Result::optional_number(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return number(row, column);
}

long long Result::affected() const {
  const char* n = PQcmdTuples(result_.get());
  return n == nullptr || *n == '\0' ? 0 : std::atoll(n);
}

void Connection::Finish::operator()(pg_conn* conn) const noexcept {
  PQfinish(conn);
}

Connection Connection::open(const std::string& uri) {
  const ConnectionOptions options = connection_options(uri);
  std::vector<const char*> keywords;
  std::vector<const char*> values;
  for (const auto& [keyword, value] : options) {
    keywords.push_back(keyword.c_str());
    values.push_back(value.c_str());
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  // expand_dbname = 0: the string is parsed already; a dbname is only a name here.
  Connection conn(PQconnectdbParams(keywords.data(), values.data(), 0));
  if (!conn.conn_) throw DbError("database: out of memory", "", true);
  if (PQstatus(conn.conn_.get()) != CONNECTION_OK) {
    // Never print the URI: it may hold a password. A server that answered FATAL (no such
    // database, authentication failed) will answer the same again: not worth a retry,
    // unless it was only starting up or shutting down.
    const std::string message = trimmed(PQerrorMessage(conn.conn_.get()));
    const bool transient = message.find("FATAL:") == std::string::npos ||
                           message.find("the database system is") != std::string::npos;
    throw DbError("database: cannot connect: " + message, "", transient);
  }
  PQsetNoticeProcessor(conn.conn_.get(), ignore_notice, nullptr);
  // One round trip, before any statement of ours: names resolve in pg_catalog, then in the
  // session's own temporary tables, never in a schema that other roles can write (a
  // function or operator there could be chosen over pg_catalog's). Set here, after the
  // connection's own options, so that no libpq option, service file or role setting
  // undoes it. libpq follows the encoding from the server's report, as PQsetClientEncoding.
  conn.exec(session_settings);
  return conn;
}

void Connection::fail(std::string_view what) {
  const bool lost = PQstatus(conn_.get()) != CONNECTION_OK;
  throw DbError("database: " + std::string(what) + ": " + trimmed(PQerrorMessage(conn_.get())), "",
                lost);
}

// A failed result (or none: libpq's own failure) as the DbError to throw.
DbError Connection::error_of(pg_result* raw, std::string_view what) const {
  const char* state = raw == nullptr ? nullptr : PQresultErrorField(raw, PG_DIAG_SQLSTATE);
  const std::string message =
      trimmed(raw == nullptr ? PQerrorMessage(conn_.get()) : PQresultErrorMessage(raw));
  const bool lost = PQstatus(conn_.get()) != CONNECTION_OK;
  return DbError("database: " + std::string(what) + ": " + message, state ? state : "", lost);
}

Result Connection::check(pg_result* raw, std::string_view what) {
  Result result(raw);
  const ExecStatusType status = raw == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN) {
    return result;
  }
  throw error_of(raw, what);
}

// A pipeline that cannot be sent or read to its end leaves the connection in no state to
// use again: the session drops it like a lost one and runs the unit of work again.
void Connection::fail_lost(std::string_view what) {
  throw DbError("database: " + std::string(what) + ": " + trimmed(PQerrorMessage(conn_.get())),
                "", true);
}

Result Connection::exec(std::string_view sql) {
  return check(PQexec(conn_.get(), std::string(sql).c_str()), "query failed");
}

Result Connection::exec(const std::string& sql, const Params& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  return check(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                            values.data(), nullptr, nullptr, 0),
               "query failed");
}

std::vector<Result> Connection::exec_pipeline(std::span<const Statement> statements) {
  pg_conn* conn = conn_.get();
  if (PQenterPipelineMode(conn) != 1) fail("cannot enter pipeline mode");
  std::vector<const char*> values;
  for (const Statement& statement : statements) {
    values.clear();
    for (const auto& p : statement.params) values.push_back(p ? p->c_str() : nullptr);
    if (PQsendQueryParams(conn, statement.sql.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0) != 1)
      fail_lost("query failed");
  }
  if (PQpipelineSync(conn) != 1) fail_lost("query failed");
  // Each statement's result, then a null pointer; after a failure the server skips the
  // rest (PGRES_PIPELINE_ABORTED); the sync's own result ends the pipeline.
  std::vector<Result> results;
  results.reserve(statements.size());
  std::optional<DbError> error;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    pg_result* raw = PQgetResult(conn);
    if (raw == nullptr || PQstatus(conn) != CONNECTION_OK) {
      Result dropped(raw);
      fail_lost("query failed");
    }
    const ExecStatusType status = PQresultStatus(raw);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK &&
        status != PGRES_PIPELINE_ABORTED && !error)
      error = error_of(raw, "query failed");
    results.emplace_back(raw);
    if (pg_result* more = PQgetResult(conn); more != nullptr) {
      Result dropped(more);
      fail_lost("query failed: more than one result of a statement in a pipeline");
    }
  }
  pg_result* sync = PQgetResult(conn);
  const Result sync_result(sync);
  if (PQresultStatus(sync) != PGRES_PIPELINE_SYNC || PQexitPipelineMode(conn) != 1)
    fail_lost("query failed: the pipeline did not end");
  if (error) throw *error;
  return results;
}

void Connection::copy_in(const std::string& copy_sql, std::string_view data) {
  check(PQexec(conn_.get(), copy_sql.c_str()), "COPY failed");
  // Sent in pieces so that libpq never has to buffer the whole batch twice.
  constexpr std::size_t piece = 1 << 20;
  for (std::size_t at = 0; at < data.size(); at += piece) {
    const std::size_t n = std::min(piece, data.size() - at);
    if (PQputCopyData(conn_.get(), data.data() + at, static_cast<int>(n)) != 1) {
      fail("COPY failed");
    }
  }
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) fail("COPY failed");
  // The COPY's own outcome, then the end of the results.
  for (PGresult* raw = PQgetResult(conn_.get()); raw != nullptr; raw = PQgetResult(conn_.get())) {
    check(raw, "COPY failed");
  }
}

bool Connection::ok() const noexcept {
  return conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

int Connection::backend_pid() const noexcept {
  return PQbackendPID(conn_.get());
}

void Connection::trace(std::FILE* out) noexcept {
  if (out == nullptr) {
    PQuntrace(conn_.get());
    return;
  }
  PQtrace(conn_.get(), out);
  PQsetTraceFlags(conn_.get(), PQTRACE_SUPPRESS_TIMESTAMPS);
}

std::vector<Statement> begin_statements(TransactionMode mode) {
  switch (mode) {
    case TransactionMode::read_write:
      return {{"BEGIN", {}}};
    case TransactionMode::load:
      return {{"BEGIN", {}},
              {"SET LOCAL lock_timeout = '30s'", {}},
              {"SET LOCAL idle_in_transaction_session_timeout = '60s'", {}}};
    case TransactionMode::snapshot:
      return {{"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {}}};
    case TransactionMode::repeatable_read:
      return {{"BEGIN ISOLATION LEVEL REPEATABLE READ", {}}};
  }
  throw Error("pg: unknown transaction mode");
}

Transaction::Transaction(Connection& conn, TransactionMode mode) : conn_(conn) {
  std::string sql;  // one round trip: the statements as one simple query
  for (const Statement& statement : begin_statements(mode))
    sql.append(sql.empty() ? "" : "; ").append(statement.sql);
  conn_.exec(sql);
}

Transaction::~Transaction() {
  if (!open_ || !conn_.ok()) return;
  try {
    conn_.exec("ROLLBACK");
  } catch (const Error&) {
    // The connection is going away anyway; the server rolls back on its own.
  }
}

void Transaction::commit() {
  conn_.exec("COMMIT");
  open_ = false;
}

}  // namespace hetscale::pg
