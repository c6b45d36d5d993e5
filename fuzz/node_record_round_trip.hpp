// The property every node record a fuzz target meets must have: what to_json writes,
// node_record_from_json reads back to the same record (targets node_record and topology).
#pragma once

#include <string>

#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/site/node_record.hpp"

namespace hetscale::fuzz {

/// The record read back from its JSON; PropertyBroken when it is refused or differs.
inline NodeRecord require_node_record_round_trip(const NodeRecord& record) {
  const nlohmann::json json = to_json(record);
  NodeRecord again;
  try {
    again = node_record_from_json(nlohmann::json::parse(json.dump()));
  } catch (const Error& e) {
    throw PropertyBroken(std::string("written node record rejected: ") + e.what());
  }
  require(to_json(again) == json, "written node record reads back differently");
  return again;
}

}  // namespace hetscale::fuzz
