#include "hetscale/base/version.hpp"

namespace hetscale {

std::string_view version() noexcept {
  return HETSCALE_VERSION;
}

}  // namespace hetscale
