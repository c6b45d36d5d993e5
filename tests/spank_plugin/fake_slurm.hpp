// A SlurmApi that records what the plugin does, for the unit tests.
#pragma once

#include <fstream>
#include <map>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "slurm_api.hpp"

namespace hetscale::spank {

class FakeSlurm final : public SlurmApi {
 public:
  std::map<Item, std::uint64_t> items;
  std::map<std::string, std::string> env;
  std::vector<std::string> errors;
  std::vector<std::string> infos;
  std::vector<std::string> step_hosts;                        // of the last step()
  std::map<std::string, std::string> user_files;              // path -> content
  bool refuse_setenv = false;
  std::vector<std::string> created_files;

  std::optional<std::uint64_t> item(Item which) const override {
    auto it = items.find(which);
    return it == items.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
  }
  std::optional<std::string> getenv(const std::string& name) const override {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  void setenv(const std::string& name, const std::string& value) override {
    if (refuse_setenv) throw Error("cannot set " + name);
    env[name] = value;
  }
  void unsetenv(const std::string& name) override { env.erase(name); }
  std::string read_user_file(const std::filesystem::path& path) const override {
    auto it = user_files.find(path.string());
    if (it == user_files.end())
      throw Error("cannot read " + path.string() + ": No such file or directory");
    return it->second;
  }
  // The real writer process (the tests' directory), with the test's own ids.
  UserFileAppender start_user_appender(const std::filesystem::path& path, std::size_t capacity) override {
    created_files.push_back(path.string());
    return UserFileAppender::start(path, capacity);
  }

  /// Sets up a remote-context step: node list (`hosts` is what it expands to), tasks per
  /// node, CPUs per task, Slurm's node count; this is its first node until on_node().
  void step(const std::string& list, std::vector<std::string> hosts, const std::string& tasks,
            std::uint64_t cpus_per_task = 1, std::uint64_t step_id = 0) {
    step_hosts = std::move(hosts);
    env["SLURM_STEP_NODELIST"] = list;
    env["SLURM_STEP_TASKS_PER_NODE"] = tasks;
    items[Item::cpus_per_task] = cpus_per_task;
    items[Item::step_id] = step_id;
    items[Item::node_count] = step_hosts.size();
    on_node(step_hosts.empty() ? std::string() : step_hosts.front());
  }
  /// Becomes slurmstepd on `node` of the step: Slurm's node id and SLURMD_NODENAME.
  void on_node(const std::string& node) {
    env["SLURMD_NODENAME"] = node;
    for (std::size_t i = 0; i < step_hosts.size(); ++i)
      if (step_hosts[i] == node) items[Item::node_id] = i;
  }
  /// Becomes task `rank` on `node`.
  void task(const std::string& node, std::uint64_t rank) {
    env["SLURMD_NODENAME"] = node;
    items[Item::task_global_id] = rank;
  }
 protected:
  // The lines as the plugin logs them (SlurmApi::info and error make them one line).
  void write_info(const std::string& line) override { infos.push_back(line); }
  void write_error(const std::string& line) override { errors.push_back(line); }
};

}  // namespace hetscale::spank
