// A --hetscale-weights value: off, marked, equalized or a partition FILE. The SPANK plugin
// reads it from the option; jobgen checks the experiment spec's [slurm] weights with it.
#pragma once

#include <string>
#include <string_view>

namespace hetscale {

struct WeightsRequest {
  enum class Kind { off, marked, equalized, file };
  Kind kind = Kind::off;
  std::string file;  // for Kind::file, as the user wrote it

  [[nodiscard]] bool wants_weights() const { return kind != Kind::off; }
};

/// What a value may be, for messages.
inline constexpr std::string_view weights_request_values =
    "off, marked, equalized or a partition file path containing '/', e.g. ./part.toml";

/// Parses the option value. A FILE must contain a '/' ("./part.toml"), so that a
/// mistyped keyword is reported rather than opened. Throws Error "hetscale: option: ...".
WeightsRequest parse_weights_request(std::string_view value);

/// The value back in option syntax (to hand it on from a batch script to its steps).
std::string to_option_value(const WeightsRequest& request);

}  // namespace hetscale
