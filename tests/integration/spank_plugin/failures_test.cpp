// What users see: the option in --help, and one clear "hetscale: <phase>: ..." message with
// a failed step (never a silently unweighted one) for a bad value, an unreadable FILE, a
// node missing from the site table and a broken site table; a step that did not ask runs
// whatever the state of the table.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRanMarker = "the-task-ran";

CommandResult srun_echo(const Testbed& tb, std::vector<std::string> args) {
  std::vector<std::string> argv{"srun"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"echo", kRanMarker});
  return run_command(argv, 60s, {"SLURM_CONF=" + tb.slurm_conf.string()});
}

// The step failed before its task ran, with exactly `message` as its only hetscale line.
void expect_refused(const CommandResult& r, const std::string& message) {
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.find(kRanMarker), std::string::npos) << "the task ran: " << r.describe();
  const std::vector<std::string> lines = hetscale_lines(r.err);
  ASSERT_EQ(lines.size(), 1U) << r.err;
  EXPECT_NE(lines[0].find(message), std::string::npos) << lines[0];
}

TEST(PluginFailures, HelpOfEveryJobCommandListsTheOption) {
  const Testbed tb = Testbed::from_env();
  for (const char* command : {"srun", "sbatch", "salloc"}) {
    const auto r = run_command({command, "--help"}, 30s, {"SLURM_CONF=" + tb.slurm_conf.string()});
    ASSERT_TRUE(r.ok()) << command << ": " << r.describe();
    EXPECT_NE(r.out.find("--hetscale-weights=off|marked|equalized|FILE"), std::string::npos) << command << ": " << r.out;
    EXPECT_NE(r.out.find("hetscale: per-rank speed weights in"), std::string::npos) << command;
  }
}

TEST(PluginFailures, BadOptionValueIsRefusedBySrunAndSbatch) {
  const Testbed tb = Testbed::from_env();
  const std::string message =
      "hetscale: option: bad value 'markd' for --hetscale-weights (off, marked, equalized or a partition file "
      "path containing '/', e.g. ./part.toml)";
  const auto r = srun_echo(tb, {"-N1", "--hetscale-weights=markd"});
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.find(kRanMarker), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;

  const auto b = run_command({"sbatch", "--hetscale-weights=markd", "-o", "/dev/null", "--wrap", "true"}, 30s,
                             {"SLURM_CONF=" + tb.slurm_conf.string()});
  EXPECT_NE(b.exit_code, 0) << b.describe();
  EXPECT_EQ(b.out.find("Submitted batch job"), std::string::npos) << b.describe();
  EXPECT_NE(b.err.find(message), std::string::npos) << b.err;
}

TEST(PluginFailures, UnreadableFileFailsTheStepOfAnUnprivilegedUser) {
  const Testbed tb = Testbed::from_env();
  const std::filesystem::path dir = fresh_dir("unreadable");
  const std::filesystem::path file = dir / "secret.toml";
  write_text(file, "[partition]\nby = \"node\"\n\n[[node]]\nname = \"n1\"\nweight = 1\n");
  ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  // srun of Slurm 22.05 has no --uid: the unprivileged user runs srun itself.
  const auto r = run_command({"runuser", "-u", "hetscale-test", "--", "srun", "--chdir=/tmp", "-w", "n1", "-N1",
                              "--hetscale-weights=" + file.string(), "echo", kRanMarker},
                             60s, {"SLURM_CONF=" + tb.slurm_conf.string()});
  expect_refused(r, "hetscale: partition: cannot read " + file.string() + ": Permission denied");
  // The same file is fine for root, so the refusal above was about privileges.
  const auto as_root = srun_echo(tb, {"-w", "n1", "-N1", "--hetscale-weights=" + file.string()});
  EXPECT_TRUE(as_root.ok()) << as_root.describe();
}

TEST(PluginFailures, NodeMissingFromTheSiteTableFailsTheStepThatAsks) {
  const Testbed tb = Testbed::from_env();
  const std::string missing = tb.nodes.back().name;
  const FileOverride table(tb.site_table(), site_table_without(tb.site_table(), missing));
  const auto r = srun_echo(tb, {"-w", missing, "-N1", "--hetscale-weights=marked"});
  expect_refused(r, "hetscale: weights: node " + missing + " of the step is not in site table " +
                        tb.site_table().string());
  // The other nodes are still in the table.
  const auto other = srun_echo(tb, {"-w", tb.nodes.front().name, "-N1", "--hetscale-weights=marked"});
  EXPECT_TRUE(other.ok()) << other.describe();
}

TEST(PluginFailures, BrokenSiteTableHarmsOnlyTheStepThatAsks) {
  const Testbed tb = Testbed::from_env();
  {
    const FileOverride table(tb.site_table(), "[site\nname = \"testbed\"\n");
    const auto untouched = srun_print_env(tb.slurm_conf, {"-N2", "-n2"});
    ASSERT_TRUE(untouched.ok()) << untouched.describe();
    const StepEnv step = parse_labelled_env(untouched.out);
    ASSERT_EQ(step.size(), 2U) << untouched.out;
    for (const auto& [rank, task] : step) EXPECT_EQ(task.hetscale_count(), 0U) << untouched.out;
    EXPECT_TRUE(hetscale_lines(untouched.err).empty()) << untouched.err;

    const auto asks = srun_echo(tb, {"-N1", "--hetscale-weights=marked"});
    expect_refused(asks, "hetscale: table: " + tb.site_table().string() + ":1:6: ");
  }
  // Restored: the plugin's cache (keyed on size, mtime, inode) sees the change again.
  const auto after = srun_echo(tb, {"-N1", "--hetscale-weights=marked"});
  EXPECT_TRUE(after.ok()) << after.describe();
}

}  // namespace
}  // namespace hetscale::test
