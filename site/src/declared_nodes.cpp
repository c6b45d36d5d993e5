// Declared speeds -> site table. Every error is a ConfigError at the file:line:col of the
// offending word; the table is then read back as any site table is.
#include "hetscale/site/declared_nodes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hetscale/base/number_text.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/site/hostlist.hpp"

namespace hetscale {
namespace {

constexpr std::string_view kBlanks = " \t\r\f\v";

// One word of a line and its 1-based column.
struct Word {
  std::string_view text;
  std::uint32_t column = 0;
};

std::vector<Word> words_of(std::string_view line) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (true) {
    i = line.find_first_not_of(kBlanks, i);
    if (i == std::string_view::npos) break;
    std::size_t end = std::min(line.find_first_of(kBlanks, i), line.size());
    words.push_back({line.substr(i, end - i), static_cast<std::uint32_t>(i + 1)});
    i = end;
  }
  return words;
}

class DeclaredReader {
 public:
  DeclaredReader(std::string source_name, const DeclaredSite& site)
      : source_(std::move(source_name)) {
    table_.name = site.name;
    table_.speed_unit = site.speed_unit;
    table_.speed_unit_where = {source_, 0, 0};
    table_.benchmark = std::string(kDeclaredBenchmark);
  }

  SiteTable read(std::string_view text) {
    std::uint32_t line_number = 0;
    for (std::size_t start = 0; start <= text.size();) {
      std::size_t end = std::min(text.find('\n', start), text.size());
      ++line_number;
      std::string_view line = text.substr(start, end - start);
      line = line.substr(0, std::min(line.find('#'), line.size()));
      if (const std::vector<Word> words = words_of(line); !words.empty())
        add_node(words, line_number);
      start = end + 1;
    }
    if (table_.nodes.empty()) throw ConfigError({source_, 0, 0}, "no nodes declared");
    table_.index();
    check_as_site_table();
    return std::move(table_);
  }

 private:
  [[noreturn]] void fail(std::uint32_t line, std::uint32_t column,
                         const std::string& message) const {
    throw ConfigError({source_, line, column}, message);
  }

  void add_node(const std::vector<Word>& words, std::uint32_t line) {
    const Word& name = words.front();
    check_host_name(name, line);
    Node node;
    node.name = std::string(name.text);
    node.where = {source_, line, name.column};
    node.marked_speed = 1.0;
    std::optional<Word> speed_word;
    bool has_group = false, has_cpus = false, has_speed = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const Word& word = words[i];
      const std::size_t equals = word.text.find('=');
      if (equals == std::string_view::npos)
        fail(line, word.column, fmt::format("expected key=value, not '{}'", word.text));
      const std::string_view key = word.text.substr(0, equals);
      const Word value{word.text.substr(equals + 1),
                       word.column + static_cast<std::uint32_t>(equals) + 1};
      bool* seen = key == "group"   ? &has_group
                   : key == "cpus"  ? &has_cpus
                   : key == "speed" ? &has_speed
                                    : nullptr;
      if (seen == nullptr)
        fail(line, word.column,
             fmt::format("unknown key '{}' (expected group, cpus or speed)", key));
      if (*seen) fail(line, word.column, fmt::format("'{}' is given twice", key));
      *seen = true;
      if (key == "group") {
        if (value.text.empty()) fail(line, value.column, "group must not be empty");
        node.group = std::string(value.text);
      } else if (key == "cpus") {
        node.processors = processors(value, line);
      } else {
        node.marked_speed = speed(value, line);
        speed_word = value;
      }
    }
    if (!has_group)
      fail(line, name.column, fmt::format("node '{}' has no group (group=NAME)", name.text));
    auto [first, inserted] = node_places_.emplace(node.name, node.where);
    if (!inserted)
      fail(line, name.column,
           fmt::format("node '{}' is listed twice (first at {})", node.name, first->second.str()));
    add_to_group(node, speed_word ? speed_word->column : name.column);
    table_.nodes.push_back(std::move(node));
  }

  // A group has one marked speed: the one its first node declares.
  void add_to_group(const Node& node, std::uint32_t speed_column) {
    auto found = group_first_node_.find(node.group);
    if (found == group_first_node_.end()) {
      group_first_node_.emplace(node.group, table_.nodes.size());
      table_.groups.push_back({node.group, node.marked_speed, node.where});
      return;
    }
    const Node& first = table_.nodes[found->second];
    if (first.marked_speed != node.marked_speed)
      fail(node.where.line, speed_column,
           fmt::format("node '{}' declares speed {} but group '{}' has speed {} (node '{}' at "
                       "{}): the nodes of a group declare one speed",
                       node.name, detail::shortest_text(node.marked_speed), node.group,
                       detail::shortest_text(first.marked_speed), first.name, first.where.str()));
  }

  void check_host_name(const Word& name, std::uint32_t line) const {
    std::vector<std::string> hosts;
    try {
      hosts = expand_hostlist(name.text);
    } catch (const ExpressionError& e) {
      fail(line, name.column + static_cast<std::uint32_t>(e.column()) - 1,
           fmt::format("bad node name '{}': {}", name.text, e.message()));
    }
    if (hosts.size() != 1 || hosts.front() != name.text)
      fail(line, name.column,
           fmt::format("node name '{}' is not one host name (one node a line)", name.text));
  }

  std::uint32_t processors(const Word& value, std::uint32_t line) const {
    std::uint64_t n = 0;
    const char* end = value.text.data() + value.text.size();
    const bool digits =
        !value.text.empty() && std::all_of(value.text.begin(), value.text.end(),
                                           [](char c) { return c >= '0' && c <= '9'; });
    const auto [ptr, ec] = std::from_chars(value.text.data(), end, n);
    if (!digits || ec != std::errc() || ptr != end || n == 0 ||
        n > std::numeric_limits<std::uint32_t>::max())
      fail(line, value.column,
           fmt::format("cpus must be a positive integer (at most {}), not '{}'",
                       std::numeric_limits<std::uint32_t>::max(), value.text));
    return static_cast<std::uint32_t>(n);
  }

  double speed(const Word& value, std::uint32_t line) const {
    const std::optional<double> number = finite_number(value.text);
    if (!number || *number <= 0)
      fail(line, value.column,
           fmt::format("speed must be a positive number, not '{}'", value.text));
    return *number;
  }

  // The table read back from its written form, as every reader of it will: a table this
  // reader accepts and the site table reader refuses is a bug here, named as such.
  void check_as_site_table() const {
    try {
      (void)parse_site_table(format_site_table(table_), source_);
    } catch (const ConfigError& e) {
      throw ConfigError({source_, 0, 0},
                        "the declared nodes do not make a valid site table: " + e.message());
    }
  }

  std::string source_;
  SiteTable table_;
  std::unordered_map<std::string, SourceLocation> node_places_;
  std::unordered_map<std::string, std::size_t> group_first_node_;  // index into nodes
};

}  // namespace

SiteTable parse_declared_nodes(std::string_view text, const std::string& source_name,
                               const DeclaredSite& site) {
  return DeclaredReader(source_name, site).read(text);
}

SiteTable load_declared_nodes(const std::filesystem::path& path, const DeclaredSite& site) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxSiteTableBytes);
  } catch (const FileReadError& e) {
    throw ConfigError({path.string(), 0, 0}, "cannot read: " + e.reason());
  }
  SiteTable table = parse_declared_nodes(text, path.string(), site);
  table.source = path;
  return table;
}

}  // namespace hetscale
