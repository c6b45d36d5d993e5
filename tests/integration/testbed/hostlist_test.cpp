// The site library's host lists against Slurm itself: every case of the committed
// fixtures (tests/fixtures/hostlist/) is replayed through `scontrol show hostnames` /
// `scontrol show hostlist` of the running testbed and through hetscale::expand_hostlist /
// compress_hostlist; both must agree with each other (and so with the fixture).
#include "hetscale/site/hostlist.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "hetscale/base/error.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

struct Case {
  int line = 0;
  std::string input;
  std::string expected;
};

std::vector<Case> read_cases(const std::string& file) {
  std::ifstream in(std::string(HETSCALE_FIXTURES_DIR) + "/hostlist/" + file);
  if (!in) throw std::runtime_error("cannot read fixture " + file);
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos)
      throw std::runtime_error(file + ":" + std::to_string(number) + ": no tab");
    cases.push_back({number, line.substr(0, tab), line.substr(tab + 1)});
  }
  return cases;
}

std::string join(const std::vector<std::string>& words, char sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : std::string(1, sep)) + w;
  return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

TEST(Hostlist, ExpansionMatchesScontrolShowHostnames) {
  Testbed::from_env();  // scontrol reads the testbed's SLURM_CONF
  const auto cases = read_cases("cases.txt");
  ASSERT_GT(cases.size(), 20U);
  for (const auto& c : cases) {
    SCOPED_TRACE("cases.txt:" + std::to_string(c.line) + " " + c.input);
    const auto slurm = run_command({"scontrol", "show", "hostnames", c.input}, 30s);
    if (c.expected == "!invalid") {
      EXPECT_THROW(expand_hostlist(c.input), ExpressionError);
      EXPECT_TRUE(!slurm.ok() || slurm.out.empty() || slurm.out.rfind("Invalid", 0) == 0)
          << slurm.describe();
      continue;
    }
    ASSERT_TRUE(slurm.ok()) << slurm.describe();
    const std::string ours = join(expand_hostlist(c.input), ' ');
    EXPECT_EQ(ours, join(split_lines(slurm.out), ' '));
    EXPECT_EQ(ours, c.expected);
  }
}

TEST(Hostlist, CompressionMatchesScontrolShowHostlist) {
  Testbed::from_env();
  const auto cases = read_cases("compress.txt");
  ASSERT_GT(cases.size(), 20U);
  for (const auto& c : cases) {
    SCOPED_TRACE("compress.txt:" + std::to_string(c.line) + " " + c.input);
    const auto slurm = run_command({"scontrol", "show", "hostlist", c.input}, 30s);
    ASSERT_TRUE(slurm.ok()) << slurm.describe();
    const auto hosts = split(c.input, ',');
    const std::string ours = compress_hostlist(hosts);
    EXPECT_EQ(ours, split_lines(slurm.out).at(0));
    EXPECT_EQ(ours, c.expected);
  }
}

}  // namespace
}  // namespace hetscale::test
