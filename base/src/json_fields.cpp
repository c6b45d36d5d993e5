// Typed access to JSON fields with errors naming the field (see json_fields.hpp).
#include "hetscale/base/json_fields.hpp"

#include <cmath>
#include <limits>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale::json_fields {
namespace {

bool digits(std::string_view s, std::size_t from, std::size_t count) {
  if (s.size() < from + count) return false;
  for (std::size_t i = from; i < from + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

bool is_zone(std::string_view zone) {
  if (zone == "Z") return true;
  return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digits(zone, 1, 2) &&
         zone[3] == ':' && digits(zone, 4, 2);
}

bool is_finite_number(const Json& value) {
  return value.is_number() && std::isfinite(value.get<double>());
}

}  // namespace

void fail(const std::string& field, const std::string& what) {
  throw Error("field '" + field + "' " + what);
}

std::string shown(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

std::string join(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + '.' + std::string(key);
}

void reject_unknown_keys(const Json& object, const std::string& parent,
                         std::initializer_list<std::string_view> known) {
  for (const auto& item : object.items()) {
    bool found = false;
    for (std::string_view k : known) found = found || k == item.key();
    if (!found) throw Error("unknown field '" + join(parent, item.key()) + "'");
  }
}

const Json* find(const Json& object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json& require(const Json& object, const std::string& parent, std::string_view key) {
  const Json* value = find(object, key);
  if (value == nullptr) throw Error("missing field '" + join(parent, key) + "'");
  return *value;
}

bool absent(const Json* value) {
  return value == nullptr || value->is_null();
}

std::string text(const Json& value, const std::string& field) {
  if (!value.is_string()) fail(field, "must be a string");
  const auto& s = value.get_ref<const std::string&>();
  if (s.find('\0') != std::string::npos) fail(field, "must not contain a NUL character");
  return s;
}

std::string non_empty_text(const Json& value, const std::string& field) {
  std::string s = text(value, field);
  if (s.empty()) fail(field, "must not be empty");
  return s;
}

std::string optional_text(const Json& object, const std::string& parent, std::string_view key) {
  const Json* value = find(object, key);
  return absent(value) ? std::string() : text(*value, join(parent, key));
}

namespace {

double at_most(double value, const std::string& field, double max) {
  if (std::fabs(value) > max)
    fail(field, "must be at most " + detail::shortest_text(max) + ", not " +
                    detail::shortest_text(value));
  return value;
}

}  // namespace

double finite_number(const Json& value, const std::string& field, double max) {
  if (!value.is_number()) fail(field, "must be a number");
  if (!is_finite_number(value)) fail(field, "must be a finite number");
  return at_most(value.get<double>(), field, max);
}

double non_negative(const Json& value, const std::string& field, double max) {
  if (!is_finite_number(value) || value.get<double>() < 0) {
    fail(field, "must be a non-negative number");
  }
  return at_most(value.get<double>(), field, max);
}

double positive(const Json& value, const std::string& field, double max) {
  if (!is_finite_number(value) || value.get<double>() <= 0)
    fail(field, "must be a positive number");
  return at_most(value.get<double>(), field, max);
}

double optional_non_negative(const Json& object, const std::string& parent, std::string_view key,
                             double max) {
  const Json* value = find(object, key);
  return absent(value) ? 0.0 : non_negative(*value, join(parent, key), max);
}

std::uint64_t counter(const Json& value, const std::string& field) {
  constexpr auto bigint_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (value.is_number_unsigned() && value.get<std::uint64_t>() <= bigint_max) {
    return value.get<std::uint64_t>();
  }
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  }
  fail(field, "must be a non-negative integer");
}

int small_counter(const Json& value, const std::string& field) {
  const std::uint64_t n = counter(value, field);
  if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    fail(field, "must be a non-negative integer below 2^31");
  }
  return static_cast<int>(n);
}

std::optional<std::uint64_t> optional_counter(const Json& object, const std::string& parent,
                                              std::string_view key) {
  const Json* value = find(object, key);
  if (absent(value)) return std::nullopt;
  return counter(*value, join(parent, key));
}

bool is_iso8601(std::string_view s) {
  if (s.size() < 20 || !digits(s, 0, 4) || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' ||
      !digits(s, 8, 2) || s[10] != 'T' || !digits(s, 11, 2) || s[13] != ':' || !digits(s, 14, 2) ||
      s[16] != ':' || !digits(s, 17, 2)) {
    return false;
  }
  std::size_t i = 19;
  if (s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  return is_zone(s.substr(i));
}

std::string optional_timestamp(const Json& object, const std::string& parent,
                               std::string_view key) {
  std::string value = optional_text(object, parent, key);
  if (!value.empty() && !is_iso8601(value)) {
    fail(join(parent, key), "must be an ISO 8601 time with a zone, e.g. 2026-11-21T06:10:00Z");
  }
  return value;
}

void require_jsonb_safe(const Json& value, const std::string& field) {
  if (!value.is_object()) fail(field, "must be an object");
  // dump() escapes NUL as \u0000; an escaped backslash before it would read "\\u0000".
  const std::string dumped = value.dump();
  for (std::size_t at = dumped.find("\\u0000"); at != std::string::npos;
       at = dumped.find("\\u0000", at + 1)) {
    std::size_t backslashes = 0;
    for (std::size_t i = at; i > 0 && dumped[i - 1] == '\\'; --i) ++backslashes;
    if (backslashes % 2 == 0) fail(field, "must not contain a NUL character");
  }
}

}  // namespace hetscale::json_fields
