// Helpers of the plugin's integration tests: what each task of a step saw in its
// environment, the weights the site table implies, a second small cluster with several
// CPUs per node, and RAII guards for files a test changes.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {

/// The variables one task printed (HETSCALE_*, SLURMD_NODENAME, SLURM_CPUS_PER_TASK).
struct TaskEnv {
  std::map<std::string, std::string> vars;

  [[nodiscard]] const std::string& at(const std::string& name) const;
  [[nodiscard]] bool has(const std::string& name) const { return vars.contains(name); }
  [[nodiscard]] double number(const std::string& name) const;
  [[nodiscard]] const std::string& node() const { return at("SLURMD_NODENAME"); }
  /// Number of HETSCALE_* variables, leaving out the testbed's HETSCALE_TESTBED_* and the
  /// test run's HETSCALE_TEST_*: the CTest fixture and scripts/test-slurm-releases.sh set
  /// them for the test, and srun hands the test's environment on to the tasks.
  [[nodiscard]] std::size_t hetscale_count() const;
};

/// Global rank -> what that task saw.
using StepEnv = std::map<int, TaskEnv>;

/// The command each task runs to print its environment (with srun -l, one label per line).
std::vector<std::string> print_env_command();

/// Parses `srun -l ... print_env_command()` output ("3: NAME=value" lines).
StepEnv parse_labelled_env(const std::string& out);

/// Runs `srun -l <args> <print_env_command>` with SLURM_CONF = `slurm_conf` and `env`.
CommandResult srun_print_env(const std::filesystem::path& slurm_conf,
                             const std::vector<std::string>& args,
                             const std::vector<std::string>& env = {});

/// Per-rank marked speeds the site table implies (docs/site-table.md, docs/admin.md): the
/// node's per-CPU speed x the CPUs of the rank; a node given more CPUs than it has counts
/// only its CPUs, shared evenly by its ranks. `cpus_per_task` as Slurm allocated it.
std::map<int, double> expected_rank_speeds(const StepEnv& step, const std::vector<TestbedNode>& nodes,
                                           unsigned cpus_per_task);

const TestbedNode& node_named(const std::vector<TestbedNode>& nodes, const std::string& name);

/// Tasks per node of a step, by node name.
std::map<std::string, unsigned> tasks_per_node(const StepEnv& step);

/// The plugin the fixture's cluster loads (the path its plugstack.conf names): the one
/// built here, or on another Slurm release (HETSCALE_TEST_SLURM) the one built for it.
std::filesystem::path fixture_plugin(const Testbed& tb);

/// The test-only SPANK plugin (spoof_env_plugin.cpp) built beside `plugin`, for its release.
std::filesystem::path spoof_env_plugin(const std::filesystem::path& plugin);

/// The Slurm release of the fixture's cluster when it is another than this machine's
/// (DIR/env's HETSCALE_TESTBED_SLURM, docs/testbed.md), else "".
std::string fixture_release(const Testbed& tb);

/// multi-cpu-layout.txt: p1, p2 (2 CPUs, speed 1.0, group fast), p3 (4 CPUs, 0.5, slow).
std::filesystem::path multi_cpu_layout();

/// A second cluster (scripts/cluster.sh) in its own run dir, of the fixture's Slurm release,
/// loading the fixture's plugin: up in the constructor, down in the destructor, so a
/// failing test leaves nothing running.
class ExtraCluster {
 public:
  ExtraCluster(const std::string& name, const std::filesystem::path& layout,
               const std::string& plugin_args_after_site);
  ~ExtraCluster();
  ExtraCluster(const ExtraCluster&) = delete;
  ExtraCluster& operator=(const ExtraCluster&) = delete;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  [[nodiscard]] std::filesystem::path slurm_conf() const { return dir_ / "slurm.conf"; }
  [[nodiscard]] std::filesystem::path site_table() const { return dir_ / "site.toml"; }
  [[nodiscard]] const std::vector<TestbedNode>& nodes() const { return nodes_; }

 private:
  std::filesystem::path dir_;
  std::vector<TestbedNode> nodes_;
};

/// Replaces a file's content and puts the original back (same bytes, new mtime) when it
/// goes out of scope, whatever the test did in between.
class FileOverride {
 public:
  FileOverride(std::filesystem::path path, const std::string& content);
  ~FileOverride();
  FileOverride(const FileOverride&) = delete;
  FileOverride& operator=(const FileOverride&) = delete;

 private:
  std::filesystem::path path_;
  std::string original_;
};

std::string read_text(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& content);

/// The site table at `path` without the node `node`, as the site library writes it.
std::string site_table_without(const std::filesystem::path& path, const std::string& node);

/// A fresh directory under <build>/testbed/plugin-files/<name>, world-searchable.
std::filesystem::path fresh_dir(const std::string& name);

/// Waits until `job` has its jobcomp line; returns that line ("" on timeout).
std::string wait_for_job(const Testbed& tb, const std::string& job, std::chrono::seconds timeout);

/// Lines of `text` that contain "hetscale: ".
std::vector<std::string> hetscale_lines(const std::string& text);

}  // namespace hetscale::test
