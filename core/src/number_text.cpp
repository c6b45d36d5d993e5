#include "number_text.hpp"

#include <charconv>

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
