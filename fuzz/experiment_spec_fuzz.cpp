// Experiment specs (jobgen/src/experiment_spec.cpp): the user's TOML file. Any text
// parses or raises ConfigError; an accepted spec's workload takes its one parameter.
#include "fuzz_targets.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"

int hetscale_fuzz_experiment_spec(const std::uint8_t* data, std::size_t size) {
  hetscale::jobgen::ExperimentSpec spec;
  try {
    spec =
        hetscale::jobgen::parse_experiment_spec(hetscale::fuzz::text_of(data, size), "fuzz.toml");
  } catch (const hetscale::ConfigError&) {
    return 0;
  }
  const std::vector<std::string>& names = spec.workload.parameters();
  hetscale::fuzz::require(names.size() <= 1, "workload with more than one parameter");
  hetscale::fuzz::require(names.empty() || names.front() == spec.parameter.name,
                          "workload parameter is not the spec's parameter");
  hetscale::fuzz::require(!spec.parameter.values.empty(), "spec without parameter values");
  (void)spec.code_label();
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_experiment_spec(data, size);
}
#endif
