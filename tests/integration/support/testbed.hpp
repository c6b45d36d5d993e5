// What an integration test knows about the testbed it runs against: the environment that
// the CTest fixtures set (tests/integration/CMakeLists.txt, docs/testbed.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hetscale::test {

/// The value of an environment variable the fixtures set; throws std::runtime_error
/// naming the variable when it is unset or empty (the test then fails: it was not run
/// through ctest with the fixture it needs).
std::string require_env(const char* name);

/// One node of the running cluster, as declared in its layout.
struct TestbedNode {
  std::string name;
  std::string group;
  unsigned cpus = 1;
  double speed = 1.0;
};

struct Testbed {
  std::filesystem::path dir;         // HETSCALE_TESTBED_DIR
  std::filesystem::path slurm_conf;  // SLURM_CONF
  std::vector<TestbedNode> nodes;    // from DIR/layout.txt, in layout order

  /// Reads HETSCALE_TESTBED_DIR, SLURM_CONF and the layout copy of the running cluster.
  static Testbed from_env();

  [[nodiscard]] std::filesystem::path site_table() const { return dir / "site.toml"; }
  [[nodiscard]] std::filesystem::path jobcomp_log() const { return dir / "jobcomp.log"; }
  /// Node names joined with commas ("n1,n2,...").
  [[nodiscard]] std::string node_list() const;
  /// Whether the cluster's Slurm has its PMIx plugin (`srun --mpi=list`). Debian's Slurm
  /// 26.05 (sid) is built without it, and Open MPI 5 (the roots') starts ranks under srun
  /// through PMIx only: multi-rank MPI steps cannot run there (docs/testbed.md).
  [[nodiscard]] bool has_pmix() const;
  /// The first node with exactly this speed factor; throws when there is none.
  [[nodiscard]] const TestbedNode& node_with_speed(double speed) const;
};

/// Parses a layout file (one node per line: NAME group=G cpus=N speed=S; '#' comments).
std::vector<TestbedNode> read_layout(const std::filesystem::path& path);

/// HETSCALE_TEST_DB_URI (set by the `db` fixture).
std::string test_db_uri();

}  // namespace hetscale::test
