// JSON Lines reading of run records, reporting file and line of each invalid one.
#include "hetscale/site/run_record_reader.hpp"

#include <algorithm>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <sstream>
#include <string_view>
#include <thread>

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
  // The fast reader takes the valid records (its parser stops at a nesting it refuses,
  // without recursion); everything else gets the reference path's verdict and message,
  // and no nlohmann parser sees a text nested deeper than kMaxJsonNesting.
  if (std::optional<RunRecord> record = fast::run_record_from_text(text)) return std::move(*record);
  require_json_nesting_within_limit(text, source_name, line);
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

namespace {

struct Line {
  std::uint32_t number;  // 1-based
  std::string_view text;  // without its '\n'
};

// The non-blank lines of `text` that end with '\n'; a non-blank unterminated last line
// is held back (its number in held_back_line), a blank one ignored.
std::vector<Line> complete_lines(std::string_view text, std::uint32_t& held_back_line) {
  std::vector<Line> out;
  std::uint32_t number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (!blank(line)) {
      if (end == std::string_view::npos) {
        held_back_line = number;
        break;
      }
      out.push_back({number, line});
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// What one thread makes of its share of the lines, in their order.
struct Share {
  std::vector<NumberedRunRecord> records;
  std::vector<RejectedLine> rejected;
  std::exception_ptr error;  // OnInvalid::fail: the share's first invalid line
};

void read_share(std::span<const Line> lines, const std::string& source_name,
                OnInvalid on_invalid, Share& out) {
  out.records.reserve(lines.size());
  for (const Line& line : lines) {
    try {
      out.records.push_back({line.number, parse_run_record_line(line.text, source_name, line.number)});
    } catch (const ConfigError& e) {
      if (on_invalid == OnInvalid::fail) {
        out.error = std::current_exception();
        return;
      }
      out.rejected.push_back({e.where(), e.message(), std::string(line.text)});
    }
  }
}

// Inputs this large are parsed by several threads, each a contiguous share of the lines.
constexpr std::size_t kBytesPerThread = std::size_t{4} << 20;
constexpr std::size_t kMaxThreads = 8;

}  // namespace

RunRecordFile read_run_records(std::istream& in, const std::string& source_name,
                               OnInvalid on_invalid) {
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ConfigError({source_name, 0, 0}, "read error");
  const std::string text = std::move(buffer).str();
  RunRecordFile out;
  const std::vector<Line> lines = complete_lines(text, out.held_back_line);
  const std::size_t threads = std::clamp<std::size_t>(
      std::min<std::size_t>(text.size() / kBytesPerThread, std::thread::hardware_concurrency()),
      1, std::min(kMaxThreads, std::max<std::size_t>(lines.size(), 1)));
  std::vector<Share> shares(threads);
  {
    std::vector<std::jthread> workers;
    const std::size_t each = (lines.size() + threads - 1) / threads;
    for (std::size_t t = 1; t < threads; ++t) {
      const std::span<const Line> share =
          std::span<const Line>(lines).subspan(std::min(t * each, lines.size()))
              .first(std::min(each, lines.size() - std::min(t * each, lines.size())));
      workers.emplace_back([share, &source_name, on_invalid, &shares, t] {
        read_share(share, source_name, on_invalid, shares[t]);
      });
    }
    read_share(std::span<const Line>(lines).first(std::min(each, lines.size())), source_name,
               on_invalid, shares[0]);
  }  // joins
  // In line order: the first share with an error holds the file's first invalid line.
  out.records.reserve(lines.size());
  for (Share& share : shares) {
    if (share.error) std::rethrow_exception(share.error);
    std::move(share.records.begin(), share.records.end(), std::back_inserter(out.records));
    std::move(share.rejected.begin(), share.rejected.end(), std::back_inserter(out.rejected));
  }
  return out;
}

RunRecordFile read_run_records(const std::filesystem::path& file, OnInvalid on_invalid) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "cannot read");
  return read_run_records(in, file.string(), on_invalid);
}

}  // namespace hetscale
