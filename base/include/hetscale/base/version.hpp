#pragma once

#include <string_view>

namespace hetscale {

/// The project version (CMake's PROJECT_VERSION), for --version and run fingerprints.
std::string_view version() noexcept;

}  // namespace hetscale
