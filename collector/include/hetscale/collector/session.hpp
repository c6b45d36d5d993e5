// A database session that survives a lost connection: each unit of work is one
// transaction, run again on a fresh connection after a back-off when the connection
// breaks (or the server reports a deadlock or serialization failure).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

struct Backoff {
  int attempts = 8;                            // tries per unit of work, first included
  std::chrono::milliseconds first_delay{100};  // doubled after each failure...
  std::chrono::milliseconds max_delay{5000};   // ...up to this
};

class Session {
 public:
  /// Called before each retry with the error and the delay about to be waited.
  using RetryLog = std::function<void(const pg::DbError&, std::chrono::milliseconds)>;

  Session(std::string uri, Backoff backoff, RetryLog log = {});

  /// Runs `work` on a connected session; on a retryable DbError reconnects and runs it
  /// again, until Backoff::attempts are used up (then the last error is thrown). `work`
  /// must be one transaction, so that running it again is safe.
  void run(const std::function<void(pg::Connection&)>& work);

  /// The current connection (connecting first if needed), for work that needs no retry.
  pg::Connection& connection();

 private:
  std::string uri_;
  Backoff backoff_;
  RetryLog log_;
  std::optional<pg::Connection> conn_;
};

}  // namespace hetscale::collector
