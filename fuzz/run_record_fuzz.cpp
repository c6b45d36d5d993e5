// Run records (site/src/run_record_*.cpp): JSON Lines written by users' codes, loaded by the
// collector. The fast reader (simdjson) must agree with the reference path (nlohmann +
// run_record_from_json): whatever it accepts, the reference accepts with the same record;
// it may decline anything. The whole input is also read as a file of lines, and every
// accepted record survives to_json and back.
#include <sstream>

#include "fuzz_targets.hpp"
#include "hetscale/base/json_depth.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "run_record_fast.hpp"

namespace {

using hetscale::fuzz::require;

// The reference path's verdict on one line: the record, or nothing when it rejects it.
std::optional<hetscale::RunRecord> reference(std::string_view text) {
  if (hetscale::json_nesting_beyond(text, hetscale::kMaxJsonNesting)) return std::nullopt;
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    return std::nullopt;
  }
  try {
    return hetscale::run_record_from_json(object);
  } catch (const hetscale::Error&) {
    return std::nullopt;
  }
}

void check_line(std::string_view line) {
  const std::optional<hetscale::RunRecord> fast = hetscale::fast::run_record_from_text(line);
  if (!fast) return;
  const std::optional<hetscale::RunRecord> slow = reference(line);
  require(slow.has_value(), "the fast reader accepts a record the reference path rejects");
  require(to_json(*fast) == to_json(*slow), "the fast reader's record differs from the reference");
}

void check_round_trip(const hetscale::RunRecord& record) {
  const nlohmann::json json = to_json(record);
  hetscale::RunRecord again;
  try {
    again = hetscale::run_record_from_json(nlohmann::json::parse(json.dump()));
  } catch (const hetscale::Error& e) {
    throw hetscale::fuzz::PropertyBroken(std::string("written record rejected: ") + e.what());
  }
  require(to_json(again) == json, "written record reads back differently");
}

}  // namespace

int hetscale_fuzz_run_record(const std::uint8_t* data, std::size_t size) {
  const std::string text(hetscale::fuzz::text_of(data, size));
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    check_line(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  std::istringstream in(text);
  const hetscale::RunRecordFile file =
      hetscale::read_run_records(in, "fuzz.jsonl", hetscale::OnInvalid::skip);
  for (const hetscale::NumberedRunRecord& numbered : file.records) {
    check_round_trip(numbered.record);
  }
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_run_record(data, size);
}
#endif
