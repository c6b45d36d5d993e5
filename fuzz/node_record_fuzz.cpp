// Node records (site/src/node_record.cpp): JSON Lines printed by `hetscale classify` on each
// node, read by `hetscale groups`. Every line becomes a record or an error of its own,
// nothing else escapes; an accepted record survives to_json and back.
#include <sstream>

#include "fuzz_targets.hpp"
#include "hetscale/site/node_record.hpp"
#include "node_record_round_trip.hpp"

int hetscale_fuzz_node_record(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(hetscale::fuzz::text_of(data, size))};
  hetscale::NodeRecordBatch batch;
  hetscale::read_node_records(in, "fuzz.jsonl", batch);
  for (const hetscale::LocatedNodeRecord& located : batch.records)
    hetscale::fuzz::require_node_record_round_trip(located.record);
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_node_record(data, size);
}
#endif
