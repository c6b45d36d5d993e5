#include "hetscale/base/number_text.hpp"

#include <charconv>
#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale {

std::optional<double> finite_number(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

double parse_number(std::string_view text, std::string_view what) {
  if (const auto value = finite_number(text)) return *value;
  throw Error(std::string(what) + ": '" + std::string(text) + "' is not a number");
}

std::string interval_text(double value, const std::optional<double>& low,
                          const std::optional<double>& high, std::string_view reason,
                          const NumberText& number, std::string_view unit) {
  const auto written = [&number](double v) { return number ? number(v) : detail::rounded_text(v); };
  std::string figure = written(value);
  if (!unit.empty()) figure += " " + std::string(unit);
  if (!low && !high && !reason.empty()) return figure + " (" + std::string(reason) + ")";
  const auto bound = [&written](const std::optional<double>& b) {
    return b ? written(*b) : std::string("open");
  };
  return figure + " [" + bound(low) + ", " + bound(high) + "]";
}

}  // namespace hetscale

namespace hetscale::detail {

std::string shortest_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return {buffer, result.ptr};
}

std::string rounded_text(double value, int digits) {
  char buffer[32];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits);
  return {buffer, result.ptr};
}

}  // namespace hetscale::detail
