#include "toml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hetscale::jobgen {
namespace {

// toml++ says "Error while parsing key-value pair: ..."; messages here start lowercase and
// stay on one line (same wording as the site table's).
std::string syntax_message(std::string_view description) {
  std::string text(description);
  constexpr std::string_view error_while = "Error while ";
  if (text.starts_with(error_while)) text = "syntax error while " + text.substr(error_while.size());
  else text = "syntax error: " + text;
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string expected_keys(std::initializer_list<std::string_view> keys) {
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

std::string type_name(const toml::node& node) {
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

toml::table TomlFields::parse() const {
  try {
    return toml::parse(text_, std::string_view(file_));
  } catch (const toml::parse_error& e) {
    fail(at(e.source()), syntax_message(e.description()));
  }
}

SourceLocation TomlFields::at(const toml::source_region& region) const {
  return SourceLocation{file_, region.begin.line, region.begin.column};
}

SourceLocation TomlFields::inside(const toml::node& string_value, std::size_t column) const {
  SourceLocation where = at(string_value);
  where.column += static_cast<std::uint32_t>(opening_quote_width(string_value) + column - 1);
  return where;
}

void TomlFields::fail(const SourceLocation& where, const std::string& message) const {
  throw ConfigError(where, message);
}

void TomlFields::check_keys(const toml::table& table, std::initializer_list<std::string_view> allowed,
                            std::string_view context) const {
  for (const auto& [key, value] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end())
      fail(at(key.source()),
           fmt::format("unknown key '{}' {} (expected {})", key.str(), context, expected_keys(allowed)));
  }
}

const toml::table& TomlFields::table_of(const toml::table& parent, std::string_view key) const {
  const toml::table* table = optional_table_of(parent, key);
  if (table == nullptr) fail(at(parent), fmt::format("missing table [{}]", key));
  return *table;
}

const toml::table* TomlFields::optional_table_of(const toml::table& parent, std::string_view key) const {
  const toml::node* node = parent.get(key);
  if (node == nullptr) return nullptr;
  const toml::table* table = node->as_table();
  if (table == nullptr) fail(at(*node), fmt::format("'{}' must be a table, not {}", key, type_name(*node)));
  return table;
}

const toml::node& TomlFields::required(const toml::table& table, std::string_view key,
                                       std::string_view context) const {
  const toml::node* node = table.get(key);
  if (node == nullptr) fail(at(table), fmt::format("missing key '{}' in {}", key, context));
  return *node;
}

std::string TomlFields::string(const toml::node& value, std::string_view key) const {
  const auto* s = value.as_string();
  if (s == nullptr) fail(at(value), fmt::format("'{}' must be a string, not {}", key, type_name(value)));
  if (s->get().empty()) fail(at(value), fmt::format("'{}' must not be empty", key));
  return s->get();
}

std::int64_t TomlFields::integer(const toml::node& value, std::string_view key, std::int64_t min,
                                 std::int64_t max) const {
  const auto* i = value.as_integer();
  if (i == nullptr) fail(at(value), fmt::format("'{}' must be an integer, not {}", key, type_name(value)));
  if (i->get() < min || i->get() > max)
    fail(at(value), fmt::format("'{}' must be between {} and {}, got {}", key, min, max, i->get()));
  return i->get();
}

double TomlFields::number(const toml::node& value, std::string_view key) const {
  double out = 0;
  if (const auto* i = value.as_integer()) out = static_cast<double>(i->get());
  else if (const auto* f = value.as_floating_point()) out = f->get();
  else fail(at(value), fmt::format("'{}' must be a number, not {}", key, type_name(value)));
  if (!std::isfinite(out)) fail(at(value), fmt::format("'{}' must be a finite number", key));
  return out;
}

bool TomlFields::boolean(const toml::node& value, std::string_view key) const {
  const auto* b = value.as_boolean();
  if (b == nullptr) fail(at(value), fmt::format("'{}' must be a boolean, not {}", key, type_name(value)));
  return b->get();
}

const toml::array& TomlFields::array(const toml::node& value, std::string_view key) const {
  const auto* a = value.as_array();
  if (a == nullptr) fail(at(value), fmt::format("'{}' must be an array, not {}", key, type_name(value)));
  return *a;
}

// A string value's region starts at its opening quote: ' and " are one character, ''' and
// """ three. (Escapes before the column would shift it; formulas have none.)
std::size_t TomlFields::opening_quote_width(const toml::node& value) const {
  std::size_t line_start = 0;
  for (std::uint32_t line = 1; line < value.source().begin.line && line_start < text_.size(); ++line) {
    const auto newline = text_.find('\n', line_start);
    if (newline == std::string_view::npos) break;
    line_start = newline + 1;
  }
  const std::size_t offset = std::min(line_start + value.source().begin.column - 1, text_.size());
  const std::string_view rest = text_.substr(offset);
  return (rest.starts_with("\"\"\"") || rest.starts_with("'''")) ? 3 : 1;
}

}  // namespace hetscale::jobgen
