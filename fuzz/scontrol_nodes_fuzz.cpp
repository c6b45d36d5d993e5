// `scontrol show node --oneliner` and `scontrol show reservation --oneliner` output
// (slurm/src/scontrol.cpp), read by `hetscale jobgen` to check the sets'
// members. Any text gives nodes or reservations or raises Error (a bad host list:
// ExpressionError); a node has a name and a state, a reservation a name.
#include "fuzz_targets.hpp"
#include "hetscale/jobgen/node_availability.hpp"

int hetscale_fuzz_scontrol_nodes(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetscale::fuzz::text_of(data, size);
  hetscale::slurm::NodeStates states;
  try {
    states.nodes = hetscale::slurm::parse_scontrol_nodes(text);
    for (const auto& node : states.nodes) {
      hetscale::fuzz::require(!node.name.empty(), "node without a name");
      hetscale::fuzz::require(!node.state.empty(), "node without a state");
      (void)hetscale::jobgen::unavailability(states, node.name, "");
    }
  } catch (const hetscale::Error&) {
  }
  try {
    states.reservations = hetscale::slurm::parse_scontrol_reservations(text);
    for (const auto& r : states.reservations) hetscale::fuzz::require(!r.name.empty(), "reservation without a name");
  } catch (const hetscale::Error&) {
  }
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_scontrol_nodes(data, size);
}
#endif
