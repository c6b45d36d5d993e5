// COPY text format: columns separated by tab, rows by newline, NULL as \N, and
// backslash, tab, newline and carriage return escaped inside values.
#include "hetscale/collector/copy_buffer.hpp"

#include <charconv>

namespace hetscale::pg {

void CopyBuffer::separator() {
  if (row_started_) data_ += '\t';
  row_started_ = true;
}

void CopyBuffer::text(std::string_view value) {
  separator();
  // Runs of ordinary characters are appended whole: most values have nothing to escape.
  while (!value.empty()) {
    const std::size_t plain = value.find_first_of("\\\t\n\r");
    data_.append(value.substr(0, plain));
    if (plain == std::string_view::npos) return;
    data_ += '\\';
    switch (value[plain]) {
      case '\t':
        data_ += 't';
        break;
      case '\n':
        data_ += 'n';
        break;
      case '\r':
        data_ += 'r';
        break;
      default:
        data_ += '\\';
    }
    value.remove_prefix(plain + 1);
  }
}

void CopyBuffer::number(double value) {
  separator();
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  data_.append(buffer, end);
}

void CopyBuffer::integer(long long value) {
  separator();
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  data_.append(buffer, end);
}

void CopyBuffer::null() {
  separator();
  data_ += "\\N";
}

void CopyBuffer::end_row() {
  data_ += '\n';
  row_started_ = false;
}

}  // namespace hetscale::pg
