// JSON Lines reading of run records, reporting file and line of each invalid one.
#include "hetscale/site/run_record_reader.hpp"

#include <fstream>
#include <optional>
#include <string_view>

#include "hetscale/base/json_depth.hpp"
#include "run_record_fast.hpp"

namespace hetscale {
namespace {

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

// nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1,
// column 7: "; the rest ("syntax error while parsing ...") is what a user needs. A number
// beyond a double's range is an out_of_range error: "[json.exception.out_of_range.406]
// number overflow parsing '1e400'".
std::string syntax_message(const nlohmann::json::exception& e) {
  std::string_view what = e.what();
  if (const auto bracket = what.find("] "); bracket != std::string_view::npos) {
    what.remove_prefix(bracket + 2);
  }
  const auto colon = what.find(": ");
  return "invalid JSON: " +
         std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
}

}  // namespace

RunRecord parse_run_record_line(std::string_view text, const std::string& source_name,
                                std::uint32_t line) {
  // No parser sees a text nested deeper than kMaxJsonNesting. The fast reader takes the
  // valid records; everything else gets the reference path's verdict and message.
  require_json_nesting_within_limit(text, source_name, line);
  if (std::optional<RunRecord> record = fast::run_record_from_text(text)) return std::move(*record);
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError({source_name, line, static_cast<std::uint32_t>(e.byte)}, syntax_message(e));
  } catch (const nlohmann::json::out_of_range& e) {
    throw ConfigError({source_name, line, 0}, syntax_message(e));
  }
  try {
    return run_record_from_json(object);
  } catch (const Error& e) {
    throw ConfigError({source_name, line, 0}, e.what());
  }
}

RunRecordFile read_run_records(std::istream& in, const std::string& source_name,
                               OnInvalid on_invalid) {
  RunRecordFile out;
  std::string text;
  std::uint32_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (blank(text)) continue;
    // getline stopped at the end of the input, not at '\n': the line may be incomplete.
    if (in.eof()) {
      out.held_back_line = line;
      break;
    }
    try {
      out.records.push_back({line, parse_run_record_line(text, source_name, line)});
    } catch (const ConfigError& e) {
      if (on_invalid == OnInvalid::fail) throw;
      out.rejected.push_back({e.where(), e.message(), std::move(text)});
    }
  }
  if (in.bad()) throw ConfigError({source_name, line, 0}, "read error");
  return out;
}

RunRecordFile read_run_records(const std::filesystem::path& file, OnInvalid on_invalid) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "cannot read");
  return read_run_records(in, file.string(), on_invalid);
}

}  // namespace hetscale
