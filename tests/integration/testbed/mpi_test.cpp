// Open MPI on the testbed: across all nodes through `srun --mpi=pmix`, and under `mpirun`
// on a single node.
#include <gtest/gtest.h>

#include <set>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

// The hosts of the "rank=R size=S host=H from=P sum=X" lines; checks each line's size.
std::multiset<std::string> ring_hosts(const std::string& out, std::size_t size) {
  std::multiset<std::string> hosts;
  for (const auto& line : split_lines(out)) {
    if (line.rfind("rank=", 0) != 0) continue;
    EXPECT_NE(line.find(" size=" + std::to_string(size) + " "), std::string::npos) << line;
    const auto at = line.find(" host=");
    hosts.insert(line.substr(at + 6, line.find(' ', at + 6) - at - 6));
  }
  return hosts;
}

TEST(Mpi, RingAndAllreduceAcrossAllNodesWithSrunPmix) {
  const Testbed tb = Testbed::from_env();
  const std::string n = std::to_string(tb.nodes.size());
  const auto r = run_command(
      {"srun", "--mpi=pmix", "-N" + n, "-n" + n, "--ntasks-per-node=1", HETSCALE_MPI_RING}, 90s);
  ASSERT_TRUE(r.ok()) << r.describe();
  std::multiset<std::string> expected;
  for (const auto& node : tb.nodes) expected.insert(node.name);
  EXPECT_EQ(ring_hosts(r.out, tb.nodes.size()), expected) << r.out;
}

TEST(Mpi, RingAndAllreduceUnderMpirunOnOneNode) {
  const Testbed tb = Testbed::from_env();
  const std::string node = tb.nodes.back().name;
  // mpirun refuses root unless told; the testbed's jobs run as root.
  const auto r =
      run_command({"srun", "-N1", "-n1", "-w", node,
                   "--export=ALL,OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                   "mpirun", "--oversubscribe", "-np", "3", HETSCALE_MPI_RING},
                  90s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(ring_hosts(r.out, 3), (std::multiset<std::string>{node, node, node})) << r.out;
}

}  // namespace
}  // namespace hetscale::test
