// JSON Lines reading of run records, reporting file and line of each invalid one.
#include "hetscale/run_record_reader.hpp"

#include <algorithm>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "run_record_fast.hpp"

namespace hetscale {
namespace {

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

// nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1,
// column 7: "; the rest ("syntax error while parsing ...") is what a user needs.
std::string syntax_message(const nlohmann::json::parse_error& e) {
  std::string_view what = e.what();
  const auto colon = what.find(": ");
  return "invalid JSON: " +
         std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
}

}  // namespace

RunRecord parse_run_record_line(std::string_view text, const std::string& source_name,
                                std::uint32_t line) {
  // The fast reader takes the valid records; everything else gets the reference path's
  // verdict and message.
  if (std::optional<RunRecord> record = fast::run_record_from_text(text)) return std::move(*record);
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError({source_name, line, static_cast<std::uint32_t>(e.byte)}, syntax_message(e));
  }
  try {
    return run_record_from_json(object);
  } catch (const Error& e) {
    throw ConfigError({source_name, line, 0}, e.what());
  }
}

namespace {

// The input is read in blocks of whole lines; the lines of a block are parsed by up to
// parse_threads threads, each taking a share of at least min_share bytes (parsing is
// most of the time a bulk load's client spends before it writes anything).
constexpr std::size_t block_bytes = std::size_t{32} << 20;
constexpr std::size_t min_share = std::size_t{1} << 20;

unsigned parse_threads() {
  return std::clamp(std::thread::hardware_concurrency(), 1U, 8U);
}

// Parses the lines of `text`, the first being line `line` + 1, into `out`; returns the
// number of the last line. With OnInvalid::fail the first invalid line throws.
std::uint32_t parse_lines(std::string_view text, std::uint32_t line, const std::string& source_name,
                          OnInvalid on_invalid, RunRecordFile& out) {
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line_text = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++line;
    if (blank(line_text)) continue;
    try {
      out.records.push_back({line, parse_run_record_line(line_text, source_name, line)});
    } catch (const ConfigError& e) {
      if (on_invalid == OnInvalid::fail) throw;
      out.rejected.push_back({e.where(), e.message(), std::string(line_text)});
    }
  }
  return line;
}

// One thread's share of a block: whole lines, and what parsing them gave.
struct Share {
  std::string_view text;
  std::uint32_t first_line = 0;  // the line before the share's first one
  RunRecordFile file;
  std::exception_ptr error;
};

// The block cut into shares at line ends, numbered.
std::vector<Share> shares(std::string_view block, std::uint32_t line) {
  const std::size_t count = std::clamp<std::size_t>(block.size() / min_share, 1, parse_threads());
  std::vector<Share> out;
  while (!block.empty()) {
    std::size_t end = block.size();
    if (out.size() + 1 < count) {
      end = std::min(block.find('\n', block.size() / (count - out.size())), block.size() - 1) + 1;
    }
    const std::string_view text = block.substr(0, end);
    out.push_back({text, line, {}, {}});
    line += static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n'));
    block.remove_prefix(end);
  }
  return out;
}

// Parses a block of whole lines on several threads, then appends the records and rejected
// lines to `out` in line order; with OnInvalid::fail the first invalid line (by number)
// throws, as when reading line by line. Returns the number of the block's last line.
std::uint32_t parse_block(std::string_view block, std::uint32_t line,
                          const std::string& source_name, OnInvalid on_invalid,
                          RunRecordFile& out) {
  std::vector<Share> parts = shares(block, line);
  std::uint32_t last = line;
  const auto parse = [&](Share& share) {
    try {
      parse_lines(share.text, share.first_line, source_name, on_invalid, share.file);
    } catch (...) {
      share.error = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::size_t i = 1; i < parts.size(); ++i) helpers.emplace_back(parse, std::ref(parts[i]));
    if (!parts.empty()) parse(parts.front());
  }  // joined
  for (Share& share : parts) {
    if (share.error) std::rethrow_exception(share.error);
    out.records.insert(out.records.end(), std::make_move_iterator(share.file.records.begin()),
                       std::make_move_iterator(share.file.records.end()));
    out.rejected.insert(out.rejected.end(), std::make_move_iterator(share.file.rejected.begin()),
                        std::make_move_iterator(share.file.rejected.end()));
    last = share.first_line +
           static_cast<std::uint32_t>(std::count(share.text.begin(), share.text.end(), '\n'));
  }
  // A last line without a newline still counts.
  return block.empty() || block.back() == '\n' ? last : last + 1;
}

}  // namespace

RunRecordFile read_run_records(std::istream& in, const std::string& source_name,
                               OnInvalid on_invalid) {
  RunRecordFile out;
  std::string buffer;
  std::uint32_t line = 0;
  for (;;) {
    const std::size_t kept = buffer.size();  // the unfinished last line of the last block
    buffer.resize(kept + block_bytes);
    in.read(buffer.data() + kept, static_cast<std::streamsize>(block_bytes));
    buffer.resize(kept + static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw ConfigError({source_name, line, 0}, "read error");
    const bool at_end = !in;
    // Whole lines only, unless at the end (no newline in the block: read on).
    const std::size_t cut = at_end ? buffer.size() : buffer.rfind('\n') + 1;
    line = parse_block(std::string_view(buffer).substr(0, cut), line, source_name, on_invalid, out);
    buffer.erase(0, cut);
    if (at_end) return out;
  }
}

RunRecordFile read_run_records(const std::filesystem::path& file, OnInvalid on_invalid) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "cannot read");
  return read_run_records(in, file.string(), on_invalid);
}

}  // namespace hetscale
