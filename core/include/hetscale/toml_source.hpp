// Where a TOML value sits in its file, for ConfigError messages (file:line:col). Shared by
// every TOML reader: the site table, partition files, experiment specs and config files,
// so that they word syntax errors, unknown keys, missing keys and bad strings alike and
// point inside strings the same way.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/error.hpp"

namespace hetscale {

class TomlSource {
 public:
  /// `text` must outlive this object; `file` names it in every message.
  TomlSource(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  /// Parses the whole document; a syntax error is a ConfigError at its position, worded
  /// on one line ("syntax error while parsing ...").
  [[nodiscard]] toml::table parse() const;

  [[nodiscard]] SourceLocation at(const toml::source_region& region) const;
  [[nodiscard]] SourceLocation at(const toml::source_position& place) const;
  [[nodiscard]] SourceLocation at(const toml::node& node) const { return at(node.source()); }
  /// Line and column of the 1-based `column` of a string value's text (past its opening
  /// quote, one character for ' and ", three for ''' and """).
  [[nodiscard]] toml::source_position position_inside(const toml::node& string_value,
                                                      std::size_t column) const;
  [[nodiscard]] SourceLocation inside(const toml::node& string_value, std::size_t column) const {
    return at(position_inside(string_value, column));
  }
  [[noreturn]] void fail(const SourceLocation& where, const std::string& message) const;

  /// Every key of `table` must be one of `allowed`; `context` is e.g. "in [site]". The
  /// message lists the allowed keys.
  void check_keys(const toml::table& table, std::initializer_list<std::string_view> allowed,
                  std::string_view context) const;

  /// The value of the required `key` of `table`; when absent, fails at the table with
  /// "missing key 'KEY' in CONTEXT" (`context` is e.g. "[site]").
  [[nodiscard]] const toml::node& required(const toml::table& table, std::string_view key,
                                           std::string_view context) const;
  /// A non-empty string; fails at the value with "'KEY' must be a string, not an integer"
  /// or "'KEY' must not be empty".
  [[nodiscard]] std::string string(const toml::node& value, std::string_view key) const;
  /// string(required(table, key, context), key).
  [[nodiscard]] std::string required_string(const toml::table& table, std::string_view key,
                                            std::string_view context) const {
    return string(required(table, key, context), key);
  }

  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  [[nodiscard]] std::size_t line_offset(std::uint32_t line) const;

  std::string_view text_;
  std::string file_;
  mutable std::vector<std::size_t> line_starts_;  // computed on first use
};

/// "a string", "an integer", ... for messages.
[[nodiscard]] std::string toml_type_name(const toml::node& node);

}  // namespace hetscale
