#include "hetscale/base/utc_time.hpp"

#include <chrono>
#include <ctime>

namespace hetscale {

std::string utc_time_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {text, length};
}

}  // namespace hetscale
