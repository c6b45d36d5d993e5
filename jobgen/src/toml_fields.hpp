// Typed, position-reporting reads of TOML values: every failure is a ConfigError at the
// file:line:col of the key or value at fault. Positions come from core's TomlSource.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "hetscale/error.hpp"
#include "hetscale/toml_source.hpp"

namespace hetscale::jobgen {

class TomlFields : public TomlSource {
 public:
  using TomlSource::TomlSource;
  /// The sub-table `key`; `table_of` fails when absent, `optional_table_of` gives nullptr.
  [[nodiscard]] const toml::table& table_of(const toml::table& parent, std::string_view key) const;
  [[nodiscard]] const toml::table* optional_table_of(const toml::table& parent, std::string_view key) const;

  /// Typed values of `key` (required keys and strings: TomlSource); wrong types fail at
  /// the value.
  [[nodiscard]] std::int64_t integer(const toml::node& value, std::string_view key,
                                     std::int64_t min, std::int64_t max) const;
  /// Integers are accepted where a number is expected.
  [[nodiscard]] double number(const toml::node& value, std::string_view key) const;
  [[nodiscard]] bool boolean(const toml::node& value, std::string_view key) const;
  [[nodiscard]] const toml::array& array(const toml::node& value, std::string_view key) const;

};


}  // namespace hetscale::jobgen
