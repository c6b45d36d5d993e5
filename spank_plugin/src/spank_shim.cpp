// The C ABI of the plugin: the only file that includes spank.h. It holds the option
// table, a dispatcher on spank_context() and the real SlurmApi; the logic is in
// plugin.cpp. No exception leaves an extern "C" function.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/base/one_line_text.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/site/site_table.hpp"
#include "plugin.hpp"

extern "C" {
#include <slurm/slurm.h>
#include <slurm/spank.h>

// SPANK_PLUGIN defines these; in C++ a namespace-scope const has internal linkage unless
// declared extern "C" first, and Slurm would not find them.
extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
SPANK_PLUGIN(hetscale, 1)
#if HETSCALE_SPANK_HAS_INIT_FAILURE_MODE
// Slurm 25.05 and later read this: a failing slurm_spank_init counts against the job,
// never the node (the default, ESPANK_NODE_FAILURE, drains the node). Our init fails only
// a job that asked for weights (internal errors), so the node is never at fault.
extern int slurm_spank_init_failure_mode;
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif
}

namespace hetscale::spank {
namespace {

class SpankApi final : public SlurmApi {
 public:
  explicit SpankApi(spank_t sp) : sp_(sp), remote_(spank_remote(sp) == 1) {}

  std::optional<std::uint64_t> item(Item which) const override {
    std::uint32_t value = 0;
    spank_err_t rc = ESPANK_ERROR;
    switch (which) {
      case Item::job_uid: {
        uid_t uid = 0;
        if (spank_get_item(sp_, S_JOB_UID, &uid) != ESPANK_SUCCESS) return std::nullopt;
        return uid;
      }
      case Item::job_id:
        rc = spank_get_item(sp_, S_JOB_ID, &value);
        break;
      case Item::step_id:
        rc = spank_get_item(sp_, S_JOB_STEPID, &value);
        break;
      case Item::node_count:
        rc = spank_get_item(sp_, S_JOB_NNODES, &value);
        break;
      case Item::node_id:
        rc = spank_get_item(sp_, S_JOB_NODEID, &value);
        break;
      case Item::local_task_count:
        rc = spank_get_item(sp_, S_JOB_LOCAL_TASK_COUNT, &value);
        break;
      case Item::total_task_count:
        rc = spank_get_item(sp_, S_JOB_TOTAL_TASK_COUNT, &value);
        break;
      case Item::task_global_id:
        rc = spank_get_item(sp_, S_TASK_GLOBAL_ID, &value);
        break;
      case Item::cpus_per_task:
        rc = spank_get_item(sp_, S_STEP_CPUS_PER_TASK, &value);
        break;
      case Item::task_exit_status: {
        int status = 0;
        if (spank_get_item(sp_, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS) return std::nullopt;
        return static_cast<std::uint32_t>(status);
      }
    }
    if (rc != ESPANK_SUCCESS) return std::nullopt;
    return value;
  }

  std::optional<std::string> getenv(const std::string& name) const override {
    if (!remote_) {
      const char* value = std::getenv(name.c_str());
      return value ? std::optional<std::string>(value) : std::nullopt;
    }
    std::vector<char> buffer(4096);
    while (true) {
      spank_err_t rc =
          spank_getenv(sp_, name.c_str(), buffer.data(), static_cast<int>(buffer.size()));
      if (rc == ESPANK_SUCCESS) return std::string(buffer.data());
      if (rc != ESPANK_NOSPACE || buffer.size() > (1u << 20)) return std::nullopt;
      buffer.resize(buffer.size() * 2);
    }
  }

  void setenv(const std::string& name, const std::string& value) override {
    bool ok = remote_ ? spank_setenv(sp_, name.c_str(), value.c_str(), 1) == ESPANK_SUCCESS
                      : ::setenv(name.c_str(), value.c_str(), 1) == 0;
    if (!ok) throw Error("cannot set " + name);
  }

  void unsetenv(const std::string& name) override {
    if (remote_) {
      spank_unsetenv(sp_, name.c_str());
    } else {
      ::unsetenv(name.c_str());
    }
  }

  // slurmstepd runs slurm_spank_user_init with its effective ids switched to the job's
  // user (and the user's groups); we refuse to open anything if that is not so.
  std::string read_user_file(const std::filesystem::path& path) const override {
    require_job_user("read", path);
    return read_regular_file(path, kMaxPartitionFileBytes);
  }

  // Only with the job user's effective ids too, which the writer process takes for good.
  UserFileAppender start_user_appender(const std::filesystem::path& path, std::size_t capacity) override {
    require_job_user("create", path);
    return UserFileAppender::start(path, capacity);
  }

 protected:
  void write_info(const std::string& line) override { slurm_info("%s", line.c_str()); }
  void write_error(const std::string& line) override { slurm_error("%s", line.c_str()); }

 private:
  void require_job_user(const char* what, const std::filesystem::path& path) const {
    std::optional<std::uint64_t> uid = item(Item::job_uid);
    if (!uid || geteuid() != static_cast<uid_t>(*uid)) {
      throw Error(std::string("refusing to ") + what + " " + path.string() + " without the job user's privileges");
    }
  }

  spank_t sp_;
  bool remote_;
};

Plugin& plugin() {
  static Plugin instance([](const std::filesystem::path& path) { return load_site_table(path); });
  return instance;
}

int on_weights_option(int, const char* value, int) {
  try {
    std::optional<std::string> error = plugin().on_option(value);
    if (error) slurm_error("%s", one_line_text(*error).c_str());
    return error ? -1 : 0;
  } catch (...) {
    return -1;
  }
}

struct spank_option weights_option = {
    const_cast<char*>("hetscale-weights"),
    const_cast<char*>("off|marked|equalized|FILE"),
    const_cast<char*>("hetscale: per-rank speed weights in HETSCALE_WEIGHT (marked speeds, "
                      "the site's equalized partition, or a partition FILE)"),
    1,
    0,
    on_weights_option};

// Runs one hook body; an escaping exception is logged and fails the hook only for a job
// that asked for weights: a step that did not ask is never failed by this plugin.
template <typename Body>
int guarded(const char* hook, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& error) {
    slurm_error("hetscale: internal: %s: %s", hook, one_line_text(error.what()).c_str());
  } catch (...) {
    slurm_error("hetscale: internal: %s: unknown exception", hook);
  }
  try {
    return plugin().failure_code();
  } catch (...) {
    return 0;
  }
}

// The task times (task_times_writer.hpp) never fail a step: these hooks return 0 whatever
// happens, and TaskTimesWriter logs and stops on any problem.
std::int64_t now_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

int untimed_on_error(const char* hook, spank_t sp, void (*body)(SlurmApi&)) noexcept {
  try {
    if (!plugin().task_times().active()) return 0;
    SpankApi slurm(sp);
    body(slurm);
  } catch (const std::exception& error) {
    slurm_info("hetscale: internal: %s: %s (the step runs untimed)", hook, one_line_text(error.what()).c_str());
    try {
      plugin().task_times().close();
    } catch (...) {
    }
  } catch (...) {
  }
  return 0;
}

}  // namespace
}  // namespace hetscale::spank

using hetscale::spank::guarded;
using hetscale::spank::plugin;
using hetscale::spank::SpankApi;
using hetscale::spank::now_ns;
using hetscale::spank::untimed_on_error;

extern "C" {

int slurm_spank_init(spank_t sp, int ac, char** av) {
  return guarded("init", [&] {
    spank_context_t context = spank_context();
    if (context == S_CTX_SLURMD) {
      // slurmd itself, once at start: the one place a plugstack error reaches the admin
      // without being printed into steps that did not ask.
      SpankApi slurm(sp);
      plugin().configure(std::vector<std::string>(av, av + ac));
      plugin().report_config(slurm);
      return 0;
    }
    if (context != S_CTX_LOCAL && context != S_CTX_REMOTE && context != S_CTX_ALLOCATOR) return 0;
    SpankApi slurm(sp);
    plugin().configure(std::vector<std::string>(av, av + ac));
    if (context != S_CTX_REMOTE) plugin().import_request_env(slurm);
    // Without the option, a job that asks is refused by srun itself ("unrecognized
    // option"); jobs that do not ask must still run.
    if (spank_option_register(sp, &hetscale::spank::weights_option) != ESPANK_SUCCESS)
      slurm_error("hetscale: init: cannot register --hetscale-weights");
    return 0;
  });
}

int slurm_spank_init_post_opt(spank_t sp, int, char**) {
  const int result = guarded("init_post_opt", [&] {
    spank_context_t context = spank_context();
    SpankApi slurm(sp);
    if (context == S_CTX_REMOTE) return plugin().load_site(slurm);  // still root here
    if (context != S_CTX_LOCAL && context != S_CTX_ALLOCATOR) return 0;
    int rc = plugin().check_request(slurm);
    if (rc == 0 && context == S_CTX_ALLOCATOR) plugin().export_request(slurm);
    return rc;
  });
  // A command (srun, sbatch, salloc) that asked for weights it cannot get stops here, as
  // Slurm stops it for a `required` plugin: the snippet says `optional` (docs/admin.md,
  // "required or optional"), and Slurm ignores an optional plugin's failure.
  if (result != 0 && spank_context() != S_CTX_REMOTE) std::exit(1);
  return result;
}

int slurm_spank_user_init(spank_t sp, int, char**) {
  return guarded("user_init", [&] {
    SpankApi slurm(sp);
    plugin().task_times().open(slurm);
    return plugin().prepare_step(slurm);
  });
}

int slurm_spank_task_post_fork(spank_t sp, int, char**) {
  return untimed_on_error("task_post_fork", sp, [](hetscale::spank::SlurmApi& slurm) {
    plugin().task_times().task_started(slurm, now_ns());
  });
}

int slurm_spank_task_exit(spank_t sp, int, char**) {
  return untimed_on_error("task_exit", sp, [](hetscale::spank::SlurmApi& slurm) {
    plugin().task_times().task_exited(slurm, now_ns());
  });
}

int slurm_spank_exit(spank_t, int, char**) {
  try {
    plugin().task_times().close();
  } catch (...) {
  }
  return 0;
}

int slurm_spank_task_init(spank_t sp, int, char**) {
  const int rc = guarded("task_init", [&] {
    SpankApi slurm(sp);
    return plugin().task_init(slurm);
  });
  // The task of a step that asked and cannot have weights ends here, in the child
  // slurmstepd forked for it, before it runs anything: what Slurm does for a `required`
  // plugin (exit status 1), done by the plugin itself so that it holds for `optional`
  // too, whose failures Slurm ignores. A step that did not ask never gets here (rc 0).
  if (rc != 0) _exit(1);
  return 0;
}

}  // extern "C"
