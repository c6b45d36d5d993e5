#include "hetscale/base/error.hpp"

namespace hetscale {

std::string SourceLocation::str() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  return out;
}

ConfigError::ConfigError(SourceLocation where, const std::string& message)
    : Error(where.str() + ": " + message), where_(std::move(where)), message_(message) {}

ExpressionError::ExpressionError(std::size_t column, const std::string& message)
    : Error("column " + std::to_string(column) + ": " + message),
      column_(column),
      message_(message) {}

}  // namespace hetscale
