// Error types shared by every component. Messages are one line, and config errors carry
// the place they come from as "file:line:col: message".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace hetscale {

/// Where a value came from in a text file; line and column are 1-based, 0 when unknown.
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  /// "file:line:col" (or less where parts are unknown).
  [[nodiscard]] std::string str() const;
};

/// Base of every error hetscale raises on purpose; what() is a one-line message.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bad configuration file (site table, experiment spec, partition...).
/// what() == where.str() + ": " + message.
class ConfigError : public Error {
 public:
  ConfigError(SourceLocation where, const std::string& message);
  [[nodiscard]] const SourceLocation& where() const noexcept { return where_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

/// A bad expression (workload formula, host list). column is 1-based within the
/// expression text; what() == "column N: message".
class ExpressionError : public Error {
 public:
  ExpressionError(std::size_t column, const std::string& message);
  [[nodiscard]] std::size_t column() const noexcept { return column_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  std::size_t column_;
  std::string message_;
};

}  // namespace hetscale
