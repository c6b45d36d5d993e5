// The plugin under what a production site can throw at it, on the real local cluster:
// with `default=marked`, a step that did not ask runs whatever the state of the site
// table or of its own environment; files that could hang or flood slurmstepd are refused
// at once; a spoofed step layout never reaches a file path; a plugstack error shows only
// in slurmd's log and in steps that ask. Every srun is bounded by a timeout.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRanMarker = "the-task-ran";
constexpr const char* kUnavailable = "weights unavailable: the step did not ask for them";

CommandResult srun_echo(const std::filesystem::path& slurm_conf, std::vector<std::string> args) {
  std::vector<std::string> argv{"srun"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"echo", kRanMarker});
  return run_command(argv, 60s, {"SLURM_CONF=" + slurm_conf.string()});
}

// The step that asked failed before its task ran, within the timeout, saying `message`.
void expect_refused(const CommandResult& r, const std::string& message) {
  EXPECT_FALSE(r.timed_out) << "slurmstepd hung: " << r.describe();
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.find(kRanMarker), std::string::npos) << "the task ran: " << r.describe();
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
}

// A step of every node that did not ask ran, each task with HETSCALE_WEIGHTS_SOURCE =
// `source` and no other HETSCALE_* variable, and nothing of hetscale in its output.
void expect_ran_without_weights(const CommandResult& r, std::size_t tasks,
                                 const std::string& source = "unavailable") {
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), tasks) << r.out;
  for (const auto& [rank, task] : step) {
    SCOPED_TRACE(task.node());
    EXPECT_EQ(task.hetscale_count(), source.empty() ? 0U : 1U) << r.out;
    if (!source.empty()) {
      EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), source);
    }
  }
  EXPECT_TRUE(hetscale_lines(r.err).empty()) << r.err;
}

// Lines of each node's slurmd log (slurmstepd logs there too) that contain `text`.
std::map<std::string, std::size_t> log_lines(const ExtraCluster& cluster, const std::string& text) {
  std::map<std::string, std::size_t> counts;
  for (const TestbedNode& node : cluster.nodes()) {
    const std::filesystem::path log = cluster.dir() / "log" / ("slurmd-" + node.name + ".log");
    std::ifstream in(log);
    std::string line;
    std::size_t n = 0;
    while (std::getline(in, line)) n += line.find(text) != std::string::npos ? 1 : 0;
    counts[node.name] = n;
  }
  return counts;
}

std::map<std::string, std::size_t> plus_one(std::map<std::string, std::size_t> counts) {
  for (auto& [node, n] : counts) ++n;
  return counts;
}

// Moves a file away for the scope (the absent site table).
class FileAway {
 public:
  explicit FileAway(std::filesystem::path path) : path_(std::move(path)), away_(path_.string() + ".away") {
    std::filesystem::rename(path_, away_);
  }
  ~FileAway() {
    std::error_code ec;
    std::filesystem::rename(away_, path_, ec);
  }
  FileAway(const FileAway&) = delete;
  FileAway& operator=(const FileAway&) = delete;

 private:
  std::filesystem::path path_;
  std::filesystem::path away_;
};

// With default=marked, the site table absent, corrupt or missing a node of the step: a
// step that did not ask runs, with HETSCALE_WEIGHTS_SOURCE=unavailable and one line per
// node in slurmd's log; the same step asking fails with the reason.
TEST(PluginHardening, SiteDefaultNeverFailsAStepThatDidNotAsk) {
  const ExtraCluster cluster("plugin-default-safe", multi_cpu_layout(),
                             "default=marked cache=/var/cache/hetscale");
  const auto conf = cluster.slurm_conf();
  // Healthy first: the default weighs the step.
  const auto healthy = srun_print_env(conf, {"-N3", "-n3"});
  ASSERT_TRUE(healthy.ok()) << healthy.describe();
  for (const auto& [rank, task] : parse_labelled_env(healthy.out))
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "marked");

  auto check = [&](const std::string& what, const std::string& reason) {
    SCOPED_TRACE(what);
    const auto before = log_lines(cluster, kUnavailable);
    expect_ran_without_weights(srun_print_env(conf, {"-N3", "-n3"}), 3);
    EXPECT_EQ(log_lines(cluster, kUnavailable), plus_one(before)) << "once per node and step";
    EXPECT_GE(log_lines(cluster, reason).begin()->second, 1U) << reason;
    expect_refused(srun_echo(conf, {"-N3", "-n3", "--hetscale-weights=marked"}), reason);
  };
  {
    const FileAway away(cluster.site_table());
    check("absent table", "hetscale: table: cannot read " + cluster.site_table().string());
  }
  {
    const FileOverride corrupt(cluster.site_table(), "[site\nname = \"testbed\"\n");
    check("corrupt table", "hetscale: table: " + cluster.site_table().string() + ":1:6: ");
  }
  {
    const FileOverride without_p3(cluster.site_table(), site_table_without(cluster.site_table(), "p3"));
    check("node missing", "hetscale: weights: node p3 of the step is not in site table");
  }
  // Restored: weights again.
  const auto again = srun_print_env(conf, {"-N3", "-n3"});
  ASSERT_TRUE(again.ok()) << again.describe();
  for (const auto& [rank, task] : parse_labelled_env(again.out))
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "marked");
}

// --hetscale-weights=FILE naming what would hang slurmstepd (a FIFO), grow it without
// bound (/dev/zero, a 1 GiB file) or show it its own secrets (/proc): refused at once.
TEST(PluginHardening, FilesThatCouldHangOrFloodTheStepAreRefused) {
  const Testbed tb = Testbed::from_env();
  const std::filesystem::path dir = fresh_dir("hardening");
  const std::filesystem::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::filesystem::path big = dir / "big.toml";
  std::ofstream(big).flush();
  std::filesystem::resize_file(big, 1ull << 30);  // sparse
  const std::filesystem::path deep = dir / "deep.toml";
  std::string name = tb.nodes.front().name;
  for (int i = 0; i < 1000; ++i) name += "[1]";
  write_text(deep, "[partition]\nby = \"node\"\n[[node]]\nname = \"" + name + "\"\nweight = 1\n");
  const std::filesystem::path wide = dir / "wide.toml";
  write_text(wide, "[partition]\nby = \"node\"\n[[node]]\nname = \"n[1-1000000]x[1-1000000]\"\nweight = 1\n");

  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo.string(), "cannot read " + fifo.string() + ": is a FIFO, not a regular file"},
      {"/dev/zero", "cannot read /dev/zero: is a character device, not a regular file"},
      {big.string(), "cannot read " + big.string() + ": is larger than the 4194304 bytes allowed"},
      {"/proc/self/environ", "cannot read /proc/self/environ: is on /proc, which is never read"},
      {deep.string(), "more than 8 bracket groups in one host name"},
      {wide.string(), "too many hosts (more than 1)"},
  };
  for (const auto& [file, message] : cases) {
    SCOPED_TRACE(file);
    const auto r = srun_echo(tb.slurm_conf, {"-N1", "-w", tb.nodes.front().name,
                                             "--hetscale-weights=" + file});
    expect_refused(r, "hetscale: partition: ");
    expect_refused(r, message);
  }
  std::filesystem::remove(big);
  // The node is fine afterwards.
  const auto after = srun_echo(tb.slurm_conf, {"-N1", "-w", tb.nodes.front().name});
  EXPECT_TRUE(after.ok()) << after.describe();
}

// A step environment that lies about the layout (set in slurmstepd by a plugin listed
// before hetscale's): a step that asked is refused with the reason, one that did not runs.
TEST(PluginHardening, SpoofedStepLayoutNeverHarmsAndNeverReachesAPath) {
  const ExtraCluster cluster("plugin-spoofed", multi_cpu_layout(), "default=marked cache=off");
  const std::filesystem::path plugstack = cluster.dir() / "plugstack.conf";
  const std::string original = read_text(plugstack);
  std::string deep = "p";
  for (int i = 0; i < 100; ++i) deep += "[1]";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SLURM_STEP_NODELIST=../../etc/x", "invalid character '/' in host name"},
      {"SLURM_STEP_NODELIST=p[1-3]", "too many hosts (more than 2)"},
      {"SLURM_STEP_NODELIST=p[1..2]", "invalid character '.' in range"},
      {"SLURM_STEP_NODELIST=p..1,p2", "node name 'p..1' cannot be used in a path"},
      {"SLURM_STEP_NODELIST=" + deep, "more than 8 bracket groups in one host name"},
      {"SLURM_STEP_TASKS_PER_NODE=1(x999999999)", "more than 2 nodes"},
      {"SLURM_STEP_TASKS_PER_NODE=2,1", "tasks: the step environment says 3, Slurm says 2"},
  };
  for (const auto& [spoof, message] : cases) {
    SCOPED_TRACE(spoof);
    const FileOverride spoofed(plugstack, "optional " + spoof_env_plugin(fixture_plugin(Testbed::from_env())).string() + " " + spoof + "\n" + original);
    expect_ran_without_weights(srun_print_env(cluster.slurm_conf(), {"-N2", "-n2", "-w", "p[1-2]"}), 2);
    expect_refused(srun_echo(cluster.slurm_conf(), {"-N2", "-n2", "-w", "p[1-2]", "--hetscale-weights=equalized"}),
                   "hetscale: step: ");
    expect_refused(srun_echo(cluster.slurm_conf(), {"-N2", "-n2", "-w", "p[1-2]", "--hetscale-weights=marked"}),
                   message);
  }
}

// An equalized partition anybody could have written (or planted) is ignored, naming why;
// the step that asked for it fails, and runs once the file is root's and 0644.
TEST(PluginHardening, PlantedEqualizedPartitionIsIgnored) {
  const std::filesystem::path partitions = fresh_dir("planted-partitions");
  ::chmod(partitions.c_str(), 0755);
  const std::filesystem::path file = partitions / "p[1-2].toml";
  write_text(file, "[partition]\nby = \"node\"\n[[node]]\nname = \"p1\"\nweight = 0.9\n"
                   "[[node]]\nname = \"p2\"\nweight = 0.1\n");
  ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
  const ExtraCluster cluster("plugin-planted", multi_cpu_layout(),
                             "default=marked cache=off partitions=" + partitions.string());
  expect_refused(srun_echo(cluster.slurm_conf(), {"-N2", "-n2", "-w", "p[1-2]", "--hetscale-weights=equalized"}),
                 "hetscale: partition: equalized partition " + file.string() +
                     " ignored: it is writable by its group or others (mode 0666)");
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  const auto r = srun_print_env(cluster.slurm_conf(), {"-N2", "-n2", "-w", "p[1-2]", "--hetscale-weights=equalized"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 2U) << r.out;
  for (const auto& [rank, task] : step) {
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "equalized");
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_DIGEST"), step.begin()->second.at("HETSCALE_WEIGHTS_DIGEST"));
  }
}

// A plugstack error is logged once in each slurmd's log when it starts, never in the
// output of a step that did not ask, and fails only the steps that ask.
TEST(PluginHardening, PlugstackErrorShowsOnlyInSlurmdLogAndStepsThatAsk) {
  const ExtraCluster cluster("plugin-bad-args", multi_cpu_layout(), "default=marked colour=blue cache=off");
  const std::string message = "hetscale: config: unknown argument 'colour=blue'";
  const std::map<std::string, std::size_t> once{{"p1", 1}, {"p2", 1}, {"p3", 1}};
  EXPECT_EQ(log_lines(cluster, message), once);
  expect_ran_without_weights(srun_print_env(cluster.slurm_conf(), {"-N3", "-n3"}), 3, "");
  expect_ran_without_weights(srun_print_env(cluster.slurm_conf(), {"-N3", "-n3"}), 3, "");
  EXPECT_EQ(log_lines(cluster, message), once) << "not once per step";
  expect_refused(srun_echo(cluster.slurm_conf(), {"-N1", "--hetscale-weights=marked"}), message);
}

}  // namespace
}  // namespace hetscale::test
