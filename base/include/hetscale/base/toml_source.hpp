// The one typed TOML reader: values read with their type and range checked, and every fault
// a ConfigError at the file:line:col of the key or value at fault. Every TOML document
// hetscale reads goes through it (the site table, partition files, experiment and study
// specs, config files), so that they word syntax errors, unknown keys, missing keys and
// wrong types alike and point inside strings the same way.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_limits.hpp"

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
  /// string() of `key` when present.
  [[nodiscard]] std::optional<std::string> optional_string(const toml::table& table,
                                                           std::string_view key) const;

  /// The sub-table `key`; `table_of` fails when absent ("missing table [KEY]"),
  /// `optional_table_of` gives nullptr; anything but a table fails at the value.
  [[nodiscard]] const toml::table& table_of(const toml::table& parent, std::string_view key) const;
  [[nodiscard]] const toml::table* optional_table_of(const toml::table& parent,
                                                     std::string_view key) const;
  /// The tables of the array of tables `key` ([[KEY]]); absent is none.
  [[nodiscard]] std::vector<const toml::table*> tables_of(const toml::table& parent,
                                                          std::string_view key) const;

  /// An integer in [min, max] ("'KEY' must be between MIN and MAX, got V").
  [[nodiscard]] std::int64_t integer(const toml::node& value, std::string_view key,
                                     std::int64_t min, std::int64_t max) const;
  /// A finite number; integers are accepted where a number is expected ("speed = 20").
  /// Beyond `max` in magnitude it fails with "'KEY' must be at most MAX, not V" (the ranges
  /// are in number_limits.hpp).
  [[nodiscard]] double number(const toml::node& value, std::string_view key,
                              double max = kUnbounded) const;
  /// A number > 0 / >= 0, finite ("'KEY' must be positive and finite, not -2"), at most `max`.
  [[nodiscard]] double positive(const toml::node& value, std::string_view key,
                                double max = kUnbounded) const;
  [[nodiscard]] double non_negative(const toml::node& value, std::string_view key,
                                    double max = kUnbounded) const;
  [[nodiscard]] bool boolean(const toml::node& value, std::string_view key) const;
  [[nodiscard]] const toml::array& array(const toml::node& value, std::string_view key) const;

  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  [[nodiscard]] std::size_t line_offset(std::uint32_t line) const;
  [[nodiscard]] double at_most(const toml::node& value, std::string_view key, double number,
                               double max) const;

  std::string_view text_;
  std::string file_;
  mutable std::vector<std::size_t> line_starts_;  // computed on first use
};

/// "a string", "an integer", ... for messages.
[[nodiscard]] std::string toml_type_name(const toml::node& node);

}  // namespace hetscale
