// Plan files (site/src/round_plan.cpp): plan.json written by `hetscale jobgen`, read by the
// collector and by `jobgen --refine`. Any text parses or raises ConfigError; an accepted
// plan written back with to_json reads back to the same document.
#include "fuzz_targets.hpp"
#include "hetscale/site/round_plan.hpp"

int hetscale_fuzz_round_plan(const std::uint8_t* data, std::size_t size) {
  hetscale::RoundPlan plan;
  try {
    plan = hetscale::parse_round_plan(hetscale::fuzz::text_of(data, size), "fuzz.json");
  } catch (const hetscale::ConfigError&) {
    return 0;
  }
  const nlohmann::json json = to_json(plan);
  hetscale::fuzz::require(hetscale::is_round_plan(json), "written plan is not a plan");
  hetscale::RoundPlan again;
  try {
    again = hetscale::parse_round_plan(json.dump(), "written.json");
  } catch (const hetscale::ConfigError& e) {
    throw hetscale::fuzz::PropertyBroken(std::string("written plan rejected: ") + e.what());
  }
  hetscale::fuzz::require(to_json(again) == json, "written plan reads back differently");
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_round_plan(data, size);
}
#endif
