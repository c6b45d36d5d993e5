#include "number_format.hpp"

#include "hetscale/base/number_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <cmath>
#include <cstdlib>

namespace hetscale::report {
namespace {

constexpr const char* kSuperscripts[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};

std::string superscript(int exponent) {
  std::string out = exponent < 0 ? "⁻" : "";
  for (char c : std::to_string(std::abs(exponent))) out += kSuperscripts[c - '0'];
  return out;
}

/// "12345" -> "12,345": the integer part in groups of three from five digits on (a sign
/// and a fraction kept).
std::string grouped(const std::string& digits) {
  const std::size_t sign = digits.starts_with('-') ? 1 : 0;
  const std::size_t point = std::min(digits.find('.'), digits.size());
  if (point - sign < 5) return digits;
  std::string out = digits.substr(0, sign);
  for (std::size_t i = sign; i < point; ++i) {
    out += digits[i];
    const std::size_t left = point - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + digits.substr(point);
}

/// Fixed notation with `digits` significant digits and no trailing zeros.
std::string fixed(double value, int digits) {
  const int magnitude = value == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::abs(value))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

}  // namespace

std::string shown_number(double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  // Rounded first, so that 999,999.7 is 10^6 and not "1,000,000".
  const double rounded = std::stod(fmt::format("{:.{}e}", value, digits - 1));
  const double magnitude = std::abs(rounded);
  if (magnitude >= 1e6 || magnitude < 1e-3) {
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const std::string mantissa = fixed(rounded / std::pow(10.0, exponent), digits);
    const std::string power = "10" + superscript(exponent);
    if (mantissa == "1" || mantissa == "-1") return (rounded < 0 ? "-" : "") + power;
    return mantissa + "×" + power;
  }
  return grouped(fixed(rounded, digits));
}

std::string shown_percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  if (std::abs(100 * fraction) < 0.005) return "0%";  // rounding noise, not a difference
  const std::string number = shown_number(100 * fraction, 3);
  return (fraction > 0 ? "+" : "") + number + "%";
}

std::string shown_figure(const OptionalNumber& value, const OptionalInterval& interval,
                         const std::string& unit) {
  if (!value || !std::isfinite(*value)) return "n/a";
  if (!interval) return unit.empty() ? shown_number(*value) : shown_number(*value) + " " + unit;
  return interval_text(*value, interval->low, interval->high, interval->reason,
                       [](double v) { return shown_number(v); }, unit);
}

std::string interval_caption(const std::vector<OptionalInterval>& intervals) {
  std::vector<std::string> kinds;
  for (const OptionalInterval& i : intervals) {
    if (!i || (!i->low && !i->high && !i->reason.empty())) continue;  // no interval
    std::string how = i->method;
    if (i->resamples) how += fmt::format("{}{} resamples", how.empty() ? "" : "; ", *i->resamples);
    std::string kind = i->level > 0 ? shown_number(100 * i->level) + "%" : "level not stored";
    if (!how.empty()) kind += " (" + how + ")";
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  if (kinds.empty()) return "";
  return fmt::format("intervals: {}", fmt::join(kinds, " and "));
}

}  // namespace hetscale::report
