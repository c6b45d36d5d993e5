// Typed, position-reporting reads of TOML values: every failure is a ConfigError at the
// file:line:col of the key or value at fault. Kept apart from the spec's meaning so that
// it can give way to core's shared TOML helpers when those exist.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "hetscale/error.hpp"

namespace hetscale::jobgen {

class TomlFields {
 public:
  TomlFields(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  /// Parses the whole document; a syntax error is a ConfigError at its position.
  [[nodiscard]] toml::table parse() const;

  [[nodiscard]] SourceLocation at(const toml::source_region& region) const;
  [[nodiscard]] SourceLocation at(const toml::node& node) const { return at(node.source()); }
  /// Position of column `column` (1-based) inside a string value's text.
  [[nodiscard]] SourceLocation inside(const toml::node& string_value, std::size_t column) const;
  [[noreturn]] void fail(const SourceLocation& where, const std::string& message) const;

  /// Every key of `table` must be one of `allowed`; `context` is e.g. "in [code]".
  void check_keys(const toml::table& table, std::initializer_list<std::string_view> allowed,
                  std::string_view context) const;
  /// The sub-table `key`; `table_of` fails when absent, `optional_table_of` gives nullptr.
  [[nodiscard]] const toml::table& table_of(const toml::table& parent, std::string_view key) const;
  [[nodiscard]] const toml::table* optional_table_of(const toml::table& parent, std::string_view key) const;

  /// `key` in `table` named `context` (e.g. "[experiment]"); wrong types and missing
  /// required keys fail at the value or the table.
  [[nodiscard]] const toml::node& required(const toml::table& table, std::string_view key,
                                           std::string_view context) const;
  [[nodiscard]] std::string string(const toml::node& value, std::string_view key) const;
  [[nodiscard]] std::int64_t integer(const toml::node& value, std::string_view key,
                                     std::int64_t min, std::int64_t max) const;
  /// Integers are accepted where a number is expected.
  [[nodiscard]] double number(const toml::node& value, std::string_view key) const;
  [[nodiscard]] bool boolean(const toml::node& value, std::string_view key) const;
  [[nodiscard]] const toml::array& array(const toml::node& value, std::string_view key) const;

 private:
  [[nodiscard]] std::size_t opening_quote_width(const toml::node& value) const;

  std::string_view text_;
  std::string file_;
};

/// "a string", "an integer", ... for messages.
std::string type_name(const toml::node& node);

}  // namespace hetscale::jobgen
