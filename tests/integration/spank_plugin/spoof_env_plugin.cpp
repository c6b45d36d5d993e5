// A test-only SPANK plugin that plays a crafted job environment: in slurmstepd it sets
// each NAME=value of its plugstack arguments in the step's environment before hetscale's
// plugin (listed after it) reads it. srun itself always writes the true step layout, so
// this is how the tests put a spoofed node list in front of the plugin on a real slurmd.
extern "C" {
#include <slurm/spank.h>

extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
SPANK_PLUGIN(hetscale_test_spoof_env, 1)
}

#include <string>

extern "C" int slurm_spank_init(spank_t sp, int ac, char** av) {
  if (spank_context() != S_CTX_REMOTE) return 0;
  for (int i = 0; i < ac; ++i) {
    const std::string arg = av[i];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    spank_setenv(sp, arg.substr(0, eq).c_str(), arg.substr(eq + 1).c_str(), 1);
  }
  return 0;
}
