// What a call throws, as the model tests compare it.
#pragma once

#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {

/// The message of the Error `call` throws, or "no error".
inline std::string error_of(const auto& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace hetscale
