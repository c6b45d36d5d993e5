#include "hetscale/site/weights_request.hpp"

#include "hetscale/base/error.hpp"

namespace hetscale {

WeightsRequest parse_weights_request(std::string_view value) {
  if (value == "off") return {WeightsRequest::Kind::off, {}};
  if (value == "marked") return {WeightsRequest::Kind::marked, {}};
  if (value == "equalized") return {WeightsRequest::Kind::equalized, {}};
  if (value.find('/') != std::string_view::npos) {
    return {WeightsRequest::Kind::file, std::string(value)};
  }
  throw Error("hetscale: option: bad value '" + std::string(value) + "' for --hetscale-weights (" +
              std::string(weights_request_values) + ")");
}

std::string to_option_value(const WeightsRequest& request) {
  switch (request.kind) {
    case WeightsRequest::Kind::off:
      return "off";
    case WeightsRequest::Kind::marked:
      return "marked";
    case WeightsRequest::Kind::equalized:
      return "equalized";
    case WeightsRequest::Kind::file:
      return request.file;
  }
  return "off";
}

}  // namespace hetscale
