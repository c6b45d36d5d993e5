// Retrying units of work with exponential back-off over a fresh connection.
#include "hetscale/collector/session.hpp"

#include <algorithm>
#include <thread>

namespace hetscale::collector {

Session::Session(std::string uri, Backoff backoff, RetryLog log)
    : uri_(std::move(uri)), backoff_(backoff), log_(std::move(log)) {}

pg::Connection& Session::connection() {
  if (!conn_ || !conn_->ok()) {
    conn_.reset();
    conn_.emplace(pg::Connection::open(uri_));
  }
  return *conn_;
}

void Session::run(const std::function<void(pg::Connection&)>& work) {
  std::chrono::milliseconds delay = backoff_.first_delay;
  for (int attempt = 1;; ++attempt) {
    try {
      work(connection());
      return;
    } catch (const pg::DbError& e) {
      if (!e.retryable() || attempt >= backoff_.attempts) throw;
      if (e.connection_lost()) conn_.reset();
      if (log_) log_(e, delay);
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, backoff_.max_delay);
    }
  }
}

}  // namespace hetscale::collector
