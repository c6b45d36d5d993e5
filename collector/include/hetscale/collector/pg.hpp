// A small RAII layer over libpq: one move-only owner per
// PGconn and PGresult, values only as parameters, COPY for bulk data.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetscale/base/error.hpp"

struct pg_conn;
struct pg_result;

namespace hetscale::pg {

/// A failed database call. sqlstate() is PostgreSQL's error code ("23505"), empty when
/// libpq failed on its own (e.g. the connection broke).
class DbError : public Error {
 public:
  DbError(const std::string& message, std::string sqlstate, bool connection_lost);
  [[nodiscard]] const std::string& sqlstate() const noexcept { return sqlstate_; }
  [[nodiscard]] bool connection_lost() const noexcept { return connection_lost_; }
  /// Worth running the whole transaction again: connection lost, server shutting down
  /// or starting, deadlock, serialization failure, unique violation (a concurrent
  /// loader stored the same run first), lock timeout.
  [[nodiscard]] bool retryable() const noexcept;

 private:
  std::string sqlstate_;
  bool connection_lost_;
};

/// Owns one PGresult.
class Result {
 public:
  explicit Result(pg_result* result) noexcept : result_(result) {}
  [[nodiscard]] int rows() const noexcept;
  [[nodiscard]] int columns() const noexcept;
  [[nodiscard]] bool is_null(int row, int column) const noexcept;
  [[nodiscard]] std::string_view text(int row, int column) const noexcept;
  /// Typed reads; throw DbError on NULL or a value of another type.
  [[nodiscard]] long long integer(int row, int column) const;
  [[nodiscard]] double number(int row, int column) const;
  [[nodiscard]] std::optional<double> optional_number(int row, int column) const;
  /// Rows affected by INSERT/UPDATE/DELETE.
  [[nodiscard]] long long affected() const;

 private:
  struct Clear {
    void operator()(pg_result* result) const noexcept;
  };
  std::unique_ptr<pg_result, Clear> result_;
};

/// Query parameters; std::nullopt is SQL NULL. Every value is sent as text.
using Params = std::vector<std::optional<std::string>>;

/// One statement of a pipeline (Connection::exec_pipeline): a single SQL statement and its
/// parameters.
struct Statement {
  std::string sql;
  Params params;
};

/// libpq connection options (keyword, value) as given by a URI or key=value string,
/// plus the defaults below for each one the string (or, for connect_timeout, the
/// environment's PGCONNECT_TIMEOUT) does not give, so that no connection waits forever
/// on a dead server or network:
///   connect_timeout=10            seconds to establish the connection
///   keepalives=1, keepalives_idle=30, keepalives_interval=10, keepalives_count=3
///                                 a silent peer is found dead after about 60 s
///   tcp_user_timeout=60000        ms that sent data may stay unacknowledged
///   fallback_application_name=hetscale   (pg_stat_activity)
/// Throws DbError (not retryable) for a string libpq cannot parse; the message never
/// holds the string's values.
using ConnectionOptions = std::vector<std::pair<std::string, std::string>>;
ConnectionOptions connection_options(const std::string& conninfo);

/// Owns one PGconn.
class Connection {
 public:
  /// Connects to a libpq URI or key=value string with connection_options(uri), then sets
  /// the session's client_encoding to UTF8 and its search_path to pg_catalog, pg_temp
  /// (whatever the string, a service file or the role asked): every statement names
  /// hetscale's objects `hetscale.` and temporary tables `pg_temp.`, and no function or
  /// operator of another schema is ever chosen. Throws DbError (connection_lost).
  static Connection open(const std::string& uri);

  /// Runs trusted SQL text of ours (migrations, DDL); may hold several statements.
  Result exec(std::string_view sql);
  /// Runs one statement with values as parameters ($1, $2...).
  Result exec(const std::string& sql, const Params& params);
  /// Runs `statements` in order in one round trip (libpq's pipeline mode: all are sent,
  /// then every answer is read) and returns their results in the same order. The first
  /// statement that fails throws its DbError; the server skips those after it. Each is one
  /// statement, not COPY; in a transaction begun before, or by the first statements
  /// (begin_statements), a failure leaves that transaction aborted. The connection is out
  /// of pipeline mode again when this returns or throws, unless the connection was lost.
  std::vector<Result> exec_pipeline(std::span<const Statement> statements);
  /// COPY ... FROM STDIN with `data` in COPY text format.
  void copy_in(const std::string& copy_sql, std::string_view data);

  /// True while the connection is usable.
  [[nodiscard]] bool ok() const noexcept;
  /// The server's process id for this session (pg_terminate_backend in tests).
  [[nodiscard]] int backend_pid() const noexcept;
  /// libpq's trace of every protocol message (PQtrace, without timestamps) into `out`, one
  /// a line, "F" sent and "B" received; nullptr ends it. For tests and debugging.
  void trace(std::FILE* out) noexcept;

 private:
  struct Finish {
    void operator()(pg_conn* conn) const noexcept;
  };
  explicit Connection(pg_conn* conn) noexcept : conn_(conn) {}
  Result check(pg_result* result, std::string_view what);
  DbError error_of(pg_result* raw, std::string_view what) const;
  [[noreturn]] void fail(std::string_view what);
  [[noreturn]] void fail_lost(std::string_view what);
  std::unique_ptr<pg_conn, Finish> conn_;
};

/// How a transaction begins.
enum class TransactionMode {
  read_write,  ///< BEGIN (read committed)
  /// BEGIN, then SET LOCAL lock_timeout = '30s' (a load waiting on another one's locks
  /// gives up and is retried) and idle_in_transaction_session_timeout = '60s' (the server
  /// ends a stalled loader's session, so its locks go): every load of the collector
  load,
  snapshot,  ///< BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY: reads that must agree
  /// BEGIN ISOLATION LEVEL REPEATABLE READ: reads of one snapshot whose results are stored
  /// in the same transaction (analyze, predict)
  repeatable_read,
};

/// The statements that begin a transaction of `mode`, one statement each (so that they can
/// open a pipeline).
std::vector<Statement> begin_statements(TransactionMode mode);

/// Tag of a Transaction whose begin_statements the caller sends itself, first in a pipeline.
struct BeganInPipeline {};

/// BEGIN on construction, ROLLBACK on destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Connection& conn, TransactionMode mode = TransactionMode::read_write);
  /// Sends nothing: the caller begins the transaction (begin_statements) in the pipeline it
  /// runs next. Rolled back on destruction all the same (a ROLLBACK where no transaction
  /// began, because the pipeline failed before, is harmless).
  Transaction(Connection& conn, BeganInPipeline) noexcept : conn_(conn) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection& conn_;
  bool open_ = true;
};

}  // namespace hetscale::pg
