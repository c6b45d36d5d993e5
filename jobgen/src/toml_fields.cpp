#include "toml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hetscale::jobgen {

const toml::table& TomlFields::table_of(const toml::table& parent, std::string_view key) const {
  const toml::table* table = optional_table_of(parent, key);
  if (table == nullptr) fail(at(parent), fmt::format("missing table [{}]", key));
  return *table;
}

const toml::table* TomlFields::optional_table_of(const toml::table& parent, std::string_view key) const {
  const toml::node* node = parent.get(key);
  if (node == nullptr) return nullptr;
  const toml::table* table = node->as_table();
  if (table == nullptr) fail(at(*node), fmt::format("'{}' must be a table, not {}", key, toml_type_name(*node)));
  return table;
}

std::int64_t TomlFields::integer(const toml::node& value, std::string_view key, std::int64_t min,
                                 std::int64_t max) const {
  const auto* i = value.as_integer();
  if (i == nullptr) fail(at(value), fmt::format("'{}' must be an integer, not {}", key, toml_type_name(value)));
  if (i->get() < min || i->get() > max)
    fail(at(value), fmt::format("'{}' must be between {} and {}, got {}", key, min, max, i->get()));
  return i->get();
}

double TomlFields::number(const toml::node& value, std::string_view key) const {
  double out = 0;
  if (const auto* i = value.as_integer()) out = static_cast<double>(i->get());
  else if (const auto* f = value.as_floating_point()) out = f->get();
  else fail(at(value), fmt::format("'{}' must be a number, not {}", key, toml_type_name(value)));
  if (!std::isfinite(out)) fail(at(value), fmt::format("'{}' must be a finite number", key));
  return out;
}

bool TomlFields::boolean(const toml::node& value, std::string_view key) const {
  const auto* b = value.as_boolean();
  if (b == nullptr) fail(at(value), fmt::format("'{}' must be a boolean, not {}", key, toml_type_name(value)));
  return b->get();
}

const toml::array& TomlFields::array(const toml::node& value, std::string_view key) const {
  const auto* a = value.as_array();
  if (a == nullptr) fail(at(value), fmt::format("'{}' must be an array, not {}", key, toml_type_name(value)));
  return *a;
}

}  // namespace hetscale::jobgen
