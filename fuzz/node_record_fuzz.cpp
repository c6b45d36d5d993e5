// Node records (site/src/node_record.cpp): JSON Lines printed by `hetscale classify` on each
// node, read by `hetscale groups`. Every line becomes a record or an error of its own,
// nothing else escapes; an accepted record survives to_json and back.
#include <sstream>

#include "fuzz_targets.hpp"
#include "hetscale/site/node_record.hpp"

int hetscale_fuzz_node_record(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(hetscale::fuzz::text_of(data, size))};
  hetscale::NodeRecordBatch batch;
  hetscale::read_node_records(in, "fuzz.jsonl", batch);
  for (const hetscale::LocatedNodeRecord& located : batch.records) {
    const nlohmann::json json = to_json(located.record);
    hetscale::NodeRecord again;
    try {
      again = hetscale::node_record_from_json(nlohmann::json::parse(json.dump()));
    } catch (const hetscale::Error& e) {
      throw hetscale::fuzz::PropertyBroken(std::string("written node record rejected: ") +
                                           e.what());
    }
    hetscale::fuzz::require(to_json(again) == json, "written node record reads back differently");
  }
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_node_record(data, size);
}
#endif
