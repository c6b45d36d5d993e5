#include "private_server.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

int shell(const std::string& command) {
  return std::system(command.c_str());
}

}  // namespace

PrivateServer::PrivateServer(const std::string& name, bool durable)
    : dir_(fs::path("/tmp") / ("hetscale-" + name + "-" + std::to_string(::getpid()))),
      port_() {
  // Below Linux's ephemeral range (32768-60999), so that no client socket of another test
  // holds the port; a port that is taken anyway is skipped for the next one.
  const std::size_t first = (std::hash<std::string>{}(name) + ::getpid()) % 8000;
  for (std::size_t attempt = 0; attempt < 5 && !up_; ++attempt) {
    port_ = std::to_string(20000 + (first + attempt * 1597) % 8000);
    up_ = pg_sh("up --port " + port_ + (durable ? " --durable" : "")) == 0;
  }
}

std::string PrivateServer::log() const {
  std::ifstream in(dir_.string() + ".log");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

PrivateServer::~PrivateServer() {
  pg_sh("down");
  fs::remove_all(dir_);
  fs::remove(dir_.string() + ".log");
}

int PrivateServer::pg_sh(const std::string& verb_and_options) const {
  const std::string script = std::string(HETSCALE_SOURCE_DIR) + "/scripts/pg.sh";
  const std::string verb = verb_and_options.substr(0, verb_and_options.find(' '));
  const std::string rest =
      verb.size() < verb_and_options.size() ? verb_and_options.substr(verb.size()) : "";
  return shell(script + " " + verb + " --run-dir " + dir_.string() + rest + " >>" + dir_.string() +
               ".log 2>&1");
}

std::string PrivateServer::uri() const {
  std::ifstream in(dir_ / "uri");
  std::string uri;
  std::getline(in, uri);
  return uri;
}

bool PrivateServer::restart() const {
  return shell(
             "runuser -u postgres -- \"$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
             "/pg_ctl\" restart -D " +
             dir_.string() + "/data -m fast -w -t 60 -l " + dir_.string() +
             "/log/postgres.log >/dev/null 2>&1") == 0;
}

bool PrivateServer::crash() const {
  return pg_sh("crash") == 0;
}

bool PrivateServer::start() const {
  return pg_sh("start") == 0;
}

}  // namespace hetscale::test
