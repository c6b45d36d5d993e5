// The top-level app: unknown commands, help and version.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "hetscale/base/version.hpp"

namespace hetscale::cli::testing {
namespace {

TEST(App, AnUnknownCommandIsNamedAndTheCommandsListed) {
  const Result r = run_cli({"reprot", "--db", "x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hetscale: unknown command 'reprot' (commands: classify, "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(", analyze"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(App, HelpOfAnUnknownCommandIsAnErrorNotTheMainHelp) {
  const Result r = run_cli({"reprot", "--help"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
}

TEST(App, NoCommandAsksForOne) {
  const Result r = run_cli({});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("subcommand is required"), std::string::npos) << r.err;
}

TEST(App, VersionAndHelp) {
  Result r = run_cli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "hetscale " + std::string(version()) + "\n");
  r = run_cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Usage: hetscale"), std::string::npos);
}

}  // namespace
}  // namespace hetscale::cli::testing
