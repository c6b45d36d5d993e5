// A PostgreSQL server of a test's own, started with scripts/pg.sh on its own port and run
// directory (the shared fixture server is not touched), removed with its data at the end.
#pragma once

#include <filesystem>
#include <string>

namespace hetscale::test {

class PrivateServer {
 public:
  /// `name` keeps run directories apart; `durable` starts it with fsync, synchronous_commit
  /// and full_page_writes on (pg.sh up --durable), so that what was committed survives a
  /// crash. The port is in 20000-27999 (below the kernel's ephemeral ports), from the name
  /// and the process id; a port in use is skipped (up to five tries).
  explicit PrivateServer(const std::string& name, bool durable = false);
  PrivateServer(const PrivateServer&) = delete;
  PrivateServer& operator=(const PrivateServer&) = delete;
  ~PrivateServer();

  [[nodiscard]] bool up() const { return up_; }
  [[nodiscard]] std::string uri() const;
  /// What scripts/pg.sh printed so far (for failure messages).
  [[nodiscard]] std::string log() const;
  /// Stops the server (fast: sessions are cut, open transactions roll back) and starts it
  /// again on the same data with the same options (pg_ctl restart).
  [[nodiscard]] bool restart() const;
  /// SIGKILL to the postmaster and every backend at once (pg.sh crash); the data stays.
  [[nodiscard]] bool crash() const;
  /// Starts the server again on its data (pg.sh start): crash recovery, then ready.
  [[nodiscard]] bool start() const;

 private:
  int pg_sh(const std::string& verb_and_options) const;
  std::filesystem::path dir_;
  std::string port_;
  bool up_ = false;
};

}  // namespace hetscale::test
