// Rows in PostgreSQL's COPY text format (tab separated, \N for NULL, backslash escapes),
// built in memory and sent with pg::Connection::copy_in.
#pragma once

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

}  // namespace hetscale::pg
