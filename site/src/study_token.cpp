// The study token (site/include/hetscale/site/study_token.hpp).
#include "hetscale/site/study_token.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <random>

namespace hetscale {

std::string new_study_token() {
  std::random_device random;  // getrandom(2): a fresh draw for every study
  const std::uint32_t value = random();
  return fmt::format("{:08x}", value);
}

bool is_study_token(std::string_view text) {
  return text.size() == study_token_length && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace hetscale
