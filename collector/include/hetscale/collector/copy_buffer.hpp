// Rows in PostgreSQL's COPY text format (tab separated, \N for NULL, backslash escapes),
// or in COPY's binary format, built in memory and sent with pg::Connection::copy_in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hetscale::pg {

class CopyBuffer {
 public:
  void text(std::string_view value);
  /// Shortest text that reads back to the same double.
  void number(double value);
  void integer(long long value);
  void null();
  void end_row();
  [[nodiscard]] const std::string& data() const noexcept { return data_; }
  void clear() noexcept { data_.clear(); }

 private:
  void separator();
  std::string data_;
  bool row_started_ = false;
};

/// Rows in COPY's binary format (... FROM STDIN (FORMAT binary)): network byte order, each
/// field its length and bytes, so that the server parses no numbers. Data is header(),
/// the rows, trailer().
class BinaryCopyBuffer {
 public:
  static std::string_view header() noexcept;
  static std::string_view trailer() noexcept;
  void start_row(int fields);
  void int4(int value);
  void int8(long long value);
  void float8(double value);
  void text(std::string_view value);
  [[nodiscard]] const std::string& data() const noexcept { return data_; }

 private:
  void raw(std::uint64_t value, int bytes);
  std::string data_;
};

}  // namespace hetscale::pg
