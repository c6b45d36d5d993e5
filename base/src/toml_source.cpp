#include "hetscale/base/toml_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetscale/base/number_text.hpp"

namespace hetscale {
namespace {

// toml++ says "Error while parsing key-value pair: ..."; our messages start lowercase
// and stay on one line.
std::string syntax_message(std::string_view description) {
  std::string text(description);
  constexpr std::string_view error_while = "Error while ";
  if (text.starts_with(error_while))
    text = "syntax error while " + text.substr(error_while.size());
  else
    text = "syntax error: " + text;
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string join_keys(std::initializer_list<std::string_view> keys) {
  std::string out;
  std::size_t i = 0;
  for (std::string_view key : keys) {
    if (i > 0) out += (i + 1 == keys.size()) ? " or " : ", ";
    out += key;
    ++i;
  }
  return out;
}

}  // namespace

toml::table TomlSource::parse() const {
  try {
    return toml::parse(text_, std::string_view(file_));
  } catch (const toml::parse_error& e) {
    fail(at(e.source()), syntax_message(e.description()));
  }
}

SourceLocation TomlSource::at(const toml::source_region& region) const {
  return SourceLocation{file_, region.begin.line, region.begin.column};
}

SourceLocation TomlSource::at(const toml::source_position& place) const {
  return SourceLocation{file_, place.line, place.column};
}

toml::source_position TomlSource::position_inside(const toml::node& string_value,
                                                  std::size_t column) const {
  toml::source_position place = string_value.source().begin;
  const std::size_t offset = std::min(line_offset(place.line) + place.column - 1, text_.size());
  const std::string_view rest = text_.substr(offset);
  // (Escapes before the column would shift it; host names and formulas have none.)
  const std::size_t quote = (rest.starts_with(R"(""")") || rest.starts_with("'''")) ? 3 : 1;
  place.column += static_cast<toml::source_index>(quote + column - 1);
  return place;
}

void TomlSource::fail(const SourceLocation& where, const std::string& message) const {
  throw ConfigError(where, message);
}

void TomlSource::check_keys(const toml::table& table,
                            std::initializer_list<std::string_view> allowed,
                            std::string_view context) const {
  for (const auto& [key, value] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end())
      fail(at(key.source()), fmt::format("unknown key '{}' {} (expected {})", key.str(), context,
                                         join_keys(allowed)));
  }
}

// Byte offset of the start of a 1-based line. Computed once: a 10,000-node site table
// asks for thousands of positions.
const toml::node& TomlSource::required(const toml::table& table, std::string_view key,
                                       std::string_view context) const {
  const toml::node* node = table.get(key);
  if (node == nullptr) fail(at(table), fmt::format("missing key '{}' in {}", key, context));
  return *node;
}

std::string TomlSource::string(const toml::node& value, std::string_view key) const {
  const auto* s = value.as_string();
  if (s == nullptr) fail(at(value), fmt::format("'{}' must be a string, not {}", key, toml_type_name(value)));
  if (s->get().empty()) fail(at(value), fmt::format("'{}' must not be empty", key));
  // Every string hetscale reads is a name, a path, an expression or a command, and many end
  // up in a generated script's comment, #SBATCH or command line: none may break a line.
  for (const char c : s->get()) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r')
      fail(at(value), fmt::format("'{}' must be one line, without a line break", key));
    if ((byte < 0x20 && c != '\t') || byte == 0x7f)
      fail(at(value), fmt::format("'{}' must not hold the control character U+{:04X}", key, byte));
  }
  return s->get();
}

std::optional<std::string> TomlSource::optional_string(const toml::table& table,
                                                       std::string_view key) const {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  return string(*node, key);
}

const toml::table& TomlSource::table_of(const toml::table& parent, std::string_view key) const {
  const toml::table* table = optional_table_of(parent, key);
  if (table == nullptr) fail(at(parent), fmt::format("missing table [{}]", key));
  return *table;
}

const toml::table* TomlSource::optional_table_of(const toml::table& parent,
                                                 std::string_view key) const {
  const toml::node* node = parent.get(key);
  if (node == nullptr) return nullptr;
  const toml::table* table = node->as_table();
  if (table == nullptr)
    fail(at(*node), fmt::format("'{}' must be a table, not {}", key, toml_type_name(*node)));
  return table;
}

std::vector<const toml::table*> TomlSource::tables_of(const toml::table& parent,
                                                      std::string_view key) const {
  std::vector<const toml::table*> tables;
  const toml::node* node = parent.get(key);
  if (node == nullptr) return tables;
  const toml::array* array = node->as_array();
  if (array == nullptr || !array->is_array_of_tables())
    fail(at(*node), fmt::format("'{}' must be an array of tables ([[{}]]), not {}", key, key,
                                toml_type_name(*node)));
  tables.reserve(array->size());
  for (const toml::node& element : *array) tables.push_back(element.as_table());
  return tables;
}

std::int64_t TomlSource::integer(const toml::node& value, std::string_view key, std::int64_t min,
                                 std::int64_t max) const {
  const auto* i = value.as_integer();
  if (i == nullptr)
    fail(at(value), fmt::format("'{}' must be an integer, not {}", key, toml_type_name(value)));
  if (i->get() < min || i->get() > max)
    fail(at(value), fmt::format("'{}' must be between {} and {}, got {}", key, min, max, i->get()));
  return i->get();
}

namespace {

std::optional<double> number_value(const toml::node& value) {
  if (const auto* i = value.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = value.as_floating_point()) return f->get();
  return std::nullopt;
}

}  // namespace

double TomlSource::at_most(const toml::node& value, std::string_view key, double number,
                           double max) const {
  if (std::fabs(number) > max)
    fail(at(value), fmt::format("'{}' must be at most {}, not {}", key, detail::shortest_text(max),
                                detail::shortest_text(number)));
  return number;
}

double TomlSource::number(const toml::node& value, std::string_view key, double max) const {
  const std::optional<double> out = number_value(value);
  if (!out)
    fail(at(value), fmt::format("'{}' must be a number, not {}", key, toml_type_name(value)));
  if (!std::isfinite(*out)) fail(at(value), fmt::format("'{}' must be a finite number", key));
  return at_most(value, key, *out, max);
}

double TomlSource::positive(const toml::node& value, std::string_view key, double max) const {
  const std::optional<double> out = number_value(value);
  if (!out)
    fail(at(value), fmt::format("'{}' must be a number, not {}", key, toml_type_name(value)));
  if (!(*out > 0) || !std::isfinite(*out))
    fail(at(value), fmt::format("'{}' must be positive and finite, not {}", key, *out));
  return at_most(value, key, *out, max);
}

double TomlSource::non_negative(const toml::node& value, std::string_view key, double max) const {
  const std::optional<double> out = number_value(value);
  if (!out)
    fail(at(value), fmt::format("'{}' must be a number, not {}", key, toml_type_name(value)));
  if (!(*out >= 0) || !std::isfinite(*out))
    fail(at(value), fmt::format("'{}' must be zero or more and finite, not {}", key, *out));
  return at_most(value, key, *out, max);
}

bool TomlSource::boolean(const toml::node& value, std::string_view key) const {
  const auto* b = value.as_boolean();
  if (b == nullptr)
    fail(at(value), fmt::format("'{}' must be a boolean, not {}", key, toml_type_name(value)));
  return b->get();
}

const toml::array& TomlSource::array(const toml::node& value, std::string_view key) const {
  const auto* a = value.as_array();
  if (a == nullptr)
    fail(at(value), fmt::format("'{}' must be an array, not {}", key, toml_type_name(value)));
  return *a;
}

std::size_t TomlSource::line_offset(std::uint32_t line) const {
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    for (std::size_t i = text_.find('\n'); i != std::string_view::npos;
         i = text_.find('\n', i + 1))
      line_starts_.push_back(i + 1);
  }
  return line == 0 || line > line_starts_.size() ? 0 : line_starts_[line - 1];
}

std::string toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

}  // namespace hetscale
