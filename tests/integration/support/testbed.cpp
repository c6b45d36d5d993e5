#include "support/testbed.hpp"

#include "support/process.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hetscale::test {

std::string require_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(
        std::string(name) +
        " is not set: run this test through ctest, which brings up the testbed fixture it needs");
  }
  return value;
}

std::vector<TestbedNode> read_layout(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read layout " + path.string());
  std::vector<TestbedNode> nodes;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    TestbedNode node;
    if (!(words >> node.name)) continue;
    std::string kv;
    while (words >> kv) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos)
        throw std::runtime_error(path.string() + ":" + std::to_string(lineno) +
                                 ": expected key=value");
      const std::string key = kv.substr(0, eq);
      const std::string value = kv.substr(eq + 1);
      if (key == "group") {
        node.group = value;
      } else if (key == "cpus") {
        node.cpus = static_cast<unsigned>(std::stoul(value));
      } else if (key == "speed") {
        node.speed = std::stod(value);
      } else {
        throw std::runtime_error(path.string() + ":" + std::to_string(lineno) + ": unknown key " +
                                 key);
      }
    }
    nodes.push_back(node);
  }
  return nodes;
}

Testbed Testbed::from_env() {
  Testbed t;
  t.dir = require_env("HETSCALE_TESTBED_DIR");
  t.slurm_conf = require_env("SLURM_CONF");
  t.nodes = read_layout(t.dir / "layout.txt");
  return t;
}

bool Testbed::has_pmix() const {
  const CommandResult r =
      run_command({"srun", "--mpi=list"}, std::chrono::seconds(30), {"SLURM_CONF=" + slurm_conf.string()});
  if (!r.ok()) throw std::runtime_error("srun --mpi=list: " + r.describe());
  return (r.out + r.err).find("pmix") != std::string::npos;
}

std::string Testbed::node_list() const {
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n.name;
  return out;
}

const TestbedNode& Testbed::node_with_speed(double speed) const {
  for (const auto& n : nodes)
    if (std::abs(n.speed - speed) < 1e-9) return n;
  throw std::runtime_error("the testbed has no node of speed " + std::to_string(speed));
}

std::string test_db_uri() {
  return require_env("HETSCALE_TEST_DB_URI");
}

}  // namespace hetscale::test
