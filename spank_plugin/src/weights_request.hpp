// The user's --hetscale-weights=off|marked|equalized|FILE value.
#pragma once

#include <string>
#include <string_view>

namespace hetscale::spank {

struct WeightsRequest {
  enum class Kind { off, marked, equalized, file };
  Kind kind = Kind::off;
  std::string file;  // for Kind::file, as the user wrote it

  [[nodiscard]] bool wants_weights() const { return kind != Kind::off; }
};

/// Parses the option value. A FILE must contain a '/' ("./part.toml"), so that a
/// mistyped keyword is reported rather than opened. Throws Error "hetscale: option: ...".
WeightsRequest parse_weights_request(std::string_view value);

/// The value back in option syntax (to hand it on from a batch script to its steps).
std::string to_option_value(const WeightsRequest& request);

}  // namespace hetscale::spank
