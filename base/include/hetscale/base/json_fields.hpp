// Internal: typed access to fields of parsed JSON documents (run records, plan files),
// with errors that name the field by its path, e.g. "field 'ranks[3].wall_seconds' must
// be a non-negative number". Not installed; the JSON readers of base, site and model use it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "hetscale/base/number_limits.hpp"

namespace hetscale::json_fields {

using Json = nlohmann::json;

/// Throws Error("field '<field>' <what>").
[[noreturn]] void fail(const std::string& field, const std::string& what);

/// A value of the input in a message, bounded: a scalar as JSON (a string cut to 80
/// characters), a container by its kind only ("an object", "a list"). A value from the
/// input is never serialised whole: it may be deep or huge.
std::string shown(const Json& value);

/// "parent.key", or "key" at the top level.
std::string join(const std::string& parent, std::string_view key);

/// Throws Error("unknown field '<parent.key>'") for a key not in `known`.
void reject_unknown_keys(const Json& object, const std::string& parent,
                         std::initializer_list<std::string_view> known);

/// nullptr when absent.
const Json* find(const Json& object, std::string_view key);
/// Throws Error("missing field '<parent.key>'") when absent.
const Json& require(const Json& object, const std::string& parent, std::string_view key);
/// Absent or null.
bool absent(const Json* value);

/// A string without NUL characters (PostgreSQL text cannot hold them).
std::string text(const Json& value, const std::string& field);
std::string non_empty_text(const Json& value, const std::string& field);
/// "" when absent or null.
std::string optional_text(const Json& object, const std::string& parent, std::string_view key);

/// Numbers; beyond `max` (in magnitude for finite_number) they fail with "must be at most
/// MAX" (number_limits.hpp gives the ranges).
double finite_number(const Json& value, const std::string& field, double max = kUnbounded);
double non_negative(const Json& value, const std::string& field, double max = kUnbounded);
double positive(const Json& value, const std::string& field, double max = kUnbounded);
/// 0 when absent or null.
double optional_non_negative(const Json& object, const std::string& parent, std::string_view key,
                             double max = kUnbounded);

/// A non-negative integer that fits PostgreSQL bigint.
std::uint64_t counter(const Json& value, const std::string& field);
/// A non-negative integer that fits int.
int small_counter(const Json& value, const std::string& field);
std::optional<std::uint64_t> optional_counter(const Json& object, const std::string& parent,
                                              std::string_view key);

/// "" when absent or null; otherwise "YYYY-MM-DDTHH:MM:SS[.f](Z|+HH:MM|-HH:MM)".
std::string optional_timestamp(const Json& object, const std::string& parent, std::string_view key);
bool is_iso8601(std::string_view text);

/// A JSON object with no "\u0000" anywhere inside (jsonb refuses it).
void require_jsonb_safe(const Json& value, const std::string& field);

}  // namespace hetscale::json_fields
