// A SlurmApi that records what the plugin does, for the unit tests.
#pragma once

#include <fstream>
#include <map>
#include <sstream>

#include "hetscale/error.hpp"
#include "slurm_api.hpp"

namespace hetscale::spank {

class FakeSlurm final : public SlurmApi {
 public:
  std::map<Item, std::uint64_t> items;
  std::map<std::string, std::string> env;
  std::vector<std::string> errors;
  std::vector<std::string> infos;
  std::map<std::string, std::vector<std::string>> hostlists;  // list -> hosts
  std::map<std::string, std::string> user_files;              // path -> content
  bool refuse_setenv = false;

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
  std::vector<std::string> expand_hostlist(const std::string& list) const override {
    auto it = hostlists.find(list);
    if (it == hostlists.end()) throw Error("bad host list '" + list + "'");
    return it->second;
  }
  std::string read_user_file(const std::filesystem::path& path) const override {
    auto it = user_files.find(path.string());
    if (it == user_files.end())
      throw Error("cannot read " + path.string() + ": No such file or directory");
    return it->second;
  }
  void info(const std::string& message) override { infos.push_back(message); }
  void error(const std::string& message) override { errors.push_back(message); }

  /// Sets up a remote-context step: node list, tasks per node, CPUs per task.
  void step(const std::string& list, std::vector<std::string> hosts, const std::string& tasks,
            std::uint64_t cpus_per_task = 1, std::uint64_t step_id = 0) {
    hostlists[list] = std::move(hosts);
    env["SLURM_STEP_NODELIST"] = list;
    env["SLURM_STEP_TASKS_PER_NODE"] = tasks;
    items[Item::cpus_per_task] = cpus_per_task;
    items[Item::step_id] = step_id;
  }
  /// Becomes task `rank` on `node`.
  void task(const std::string& node, std::uint64_t rank) {
    env["SLURMD_NODENAME"] = node;
    items[Item::task_global_id] = rank;
  }
};

}  // namespace hetscale::spank
