#include "plugin_support.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "hetscale/site/site_table.hpp"

namespace hetscale::test {

using namespace std::chrono_literals;

const std::string& TaskEnv::at(const std::string& name) const {
  auto it = vars.find(name);
  if (it == vars.end()) throw std::runtime_error("the task did not print " + name);
  return it->second;
}

double TaskEnv::number(const std::string& name) const { return std::stod(at(name)); }

std::size_t TaskEnv::hetscale_count() const {
  return static_cast<std::size_t>(std::count_if(vars.begin(), vars.end(), [](const auto& kv) {
    // HETSCALE_TESTBED_* and HETSCALE_TEST_*: the testbed's and the test run's own
    // variables (HETSCALE_TEST_SLURM...), which srun hands on from the test's environment.
    return kv.first.rfind("HETSCALE_", 0) == 0 && kv.first.rfind("HETSCALE_TEST", 0) != 0;
  }));
}

std::vector<std::string> print_env_command() {
  return {"sh", "-c", "env | grep -E '^(HETSCALE_|SLURMD_NODENAME=|SLURM_CPUS_PER_TASK=)' || true"};
}

StepEnv parse_labelled_env(const std::string& out) {
  StepEnv step;
  for (const std::string& line : split_lines(out)) {
    const auto colon = line.find(": ");
    const auto eq = line.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || eq == std::string::npos)
      throw std::runtime_error("not a labelled NAME=value line: '" + line + "'");
    const int rank = std::stoi(line.substr(0, colon));
    const std::string name = line.substr(colon + 2, eq - colon - 2);
    step[rank].vars[name] = line.substr(eq + 1);
  }
  return step;
}

CommandResult srun_print_env(const std::filesystem::path& slurm_conf,
                             const std::vector<std::string>& args,
                             const std::vector<std::string>& env) {
  std::vector<std::string> argv{"srun", "-l"};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const std::string& word : print_env_command()) argv.push_back(word);
  std::vector<std::string> full_env{"SLURM_CONF=" + slurm_conf.string()};
  full_env.insert(full_env.end(), env.begin(), env.end());
  return run_command(argv, 60s, full_env);
}

const TestbedNode& node_named(const std::vector<TestbedNode>& nodes, const std::string& name) {
  for (const TestbedNode& node : nodes)
    if (node.name == name) return node;
  throw std::runtime_error("no node " + name + " in the layout");
}

std::map<std::string, unsigned> tasks_per_node(const StepEnv& step) {
  std::map<std::string, unsigned> counts;
  for (const auto& [rank, task] : step) ++counts[task.node()];
  return counts;
}

std::map<int, double> expected_rank_speeds(const StepEnv& step, const std::vector<TestbedNode>& nodes,
                                           unsigned cpus_per_task) {
  const std::map<std::string, unsigned> counts = tasks_per_node(step);
  std::map<int, double> speeds;
  for (const auto& [rank, task] : step) {
    const TestbedNode& node = node_named(nodes, task.node());
    const double wanted = static_cast<double>(counts.at(node.name)) * cpus_per_task;
    const double cpus = std::min<double>(node.cpus, wanted) / counts.at(node.name);
    speeds[rank] = node.speed * cpus;
  }
  return speeds;
}

std::filesystem::path multi_cpu_layout() {
  return std::filesystem::path(HETSCALE_PLUGIN_TEST_DIR) / "multi-cpu-layout.txt";
}

std::filesystem::path fixture_plugin(const Testbed& tb) {
  std::istringstream line(read_text(tb.dir / "plugstack.conf"));
  std::string word, plugin;
  if (!(line >> word >> plugin)) throw std::runtime_error("no plugin line in " + (tb.dir / "plugstack.conf").string());
  return plugin;
}

std::filesystem::path spoof_env_plugin(const std::filesystem::path& plugin) {
  return plugin.parent_path() / "hetscale_test_spoof_env.so";
}

std::string fixture_release(const Testbed& tb) {
  const std::string key = "export HETSCALE_TESTBED_SLURM=";
  for (const std::string& line : split_lines(read_text(tb.dir / "env")))
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  return "";
}

namespace {

std::filesystem::path cluster_script() { return std::filesystem::path(HETSCALE_SOURCE_DIR) / "scripts" / "cluster.sh"; }

}  // namespace

ExtraCluster::ExtraCluster(const std::string& name, const std::filesystem::path& layout,
                           const std::string& plugin_args_after_site)
    : dir_(std::filesystem::path(HETSCALE_BINARY_DIR) / "testbed" / name), nodes_(read_layout(layout)) {
  const Testbed fixture = Testbed::from_env();
  const std::string args = "site=" + site_table().string() + " " + plugin_args_after_site;
  std::vector<std::string> argv{cluster_script().string(), "restart", "--run-dir", dir_.string(), "--layout",
                                layout.string(), "--plugin", fixture_plugin(fixture).string(), "--plugin-args", args};
  if (const std::string release = fixture_release(fixture); !release.empty())
    argv.insert(argv.end(), {"--slurm", release});
  const CommandResult up = run_command(argv, 90s);
  if (!up.ok()) {
    run_command({cluster_script().string(), "down", "--run-dir", dir_.string()}, 60s);
    throw std::runtime_error("cannot bring up the extra cluster: " + up.describe());
  }
}

ExtraCluster::~ExtraCluster() {
  try {
    run_command({cluster_script().string(), "down", "--run-dir", dir_.string()}, 60s);
  } catch (...) {  // a destructor must not throw; `down` is also idempotent on the next run
  }
}

std::string site_table_without(const std::filesystem::path& path, const std::string& node) {
  SiteTable table = load_site_table(path);
  const auto gone = std::remove_if(table.nodes.begin(), table.nodes.end(),
                                   [&](const Node& n) { return n.name == node; });
  if (gone == table.nodes.end()) throw std::runtime_error("no node " + node + " in " + path.string());
  table.nodes.erase(gone, table.nodes.end());
  return format_site_table(table);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

FileOverride::FileOverride(std::filesystem::path path, const std::string& content)
    : path_(std::move(path)), original_(read_text(path_)) {
  if (content.size() == original_.size())  // the plugin's cache keys on size and mtime
    throw std::invalid_argument("FileOverride: give content of another size than the original");
  write_text(path_, content);
}

FileOverride::~FileOverride() {
  try {
    write_text(path_, original_);
  } catch (...) {
  }
}

std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "testbed" / "plugin-files" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ::chmod(dir.parent_path().c_str(), 0755);
  ::chmod(dir.c_str(), 01777);  // jobs of the unprivileged test user write here too
  return dir;
}

std::string wait_for_job(const Testbed& tb, const std::string& job, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream log(tb.jobcomp_log());
    std::string line;
    while (std::getline(log, line))
      if (line.rfind("JobId=" + job + " ", 0) == 0) return line;
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

std::vector<std::string> hetscale_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : split_lines(text))
    if (line.find("hetscale: ") != std::string::npos) out.push_back(line);
  return out;
}

}  // namespace hetscale::test
