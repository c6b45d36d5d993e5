// Recorded topologies (classifier/src/probe.cpp): `hetscale classify --topology FILE` reads
// an XML file someone recorded with lstopo, through hwloc's XML reader, and describes it.
// Any text is read or refused with hwloc's reason (an Error starting "hwloc: "); an
// accepted topology gives a node record whose hardware survives to_json and back with the
// same fingerprint, and whose allowed and offline counts lie within their totals.
#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/classifier/hwloc_handles.hpp"
#include "hetscale/classifier/probe.hpp"
#include "hetscale/site/node_record.hpp"
#include "node_record_round_trip.hpp"

int hetscale_fuzz_topology(const std::uint8_t* data, std::size_t size) {
  using hetscale::fuzz::require;
  hetscale::NodeRecord record;
  try {
    record.hardware = hetscale::describe_hardware(
        hetscale::HwlocTopology::from_xml_text(hetscale::fuzz::text_of(data, size), "fuzz.xml"));
  } catch (const hetscale::Error& e) {
    require(std::string_view(e.what()).starts_with("hwloc: "),
            "topology refused without hwloc's reason");
    return 0;
  }
  const hetscale::HardwareParts& h = record.hardware;
  require(h.allowed_pus && h.allowed_pus->count <= h.allowed_pus->of && h.offline_pus &&
              h.offline_pus->count <= h.offline_pus->of,
          "topology: allowed or offline processing units not out of their total");
  require(h.memory.size() == h.numa_nodes, "topology: not one memory tier per NUMA node");
  record.host = "fuzz";
  record.time = "2026-11-21T06:00:00Z";
  record.state = hetscale::NodeState::excluded;
  record.reason = "fuzz";
  record.fingerprint = hetscale::hardware_fingerprint(h);
  const hetscale::NodeRecord again = hetscale::fuzz::require_node_record_round_trip(record);
  require(hetscale::hardware_fingerprint(again.hardware) == record.fingerprint,
          "topology: the fingerprint of the record read back differs");
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_topology(data, size);
}
#endif
