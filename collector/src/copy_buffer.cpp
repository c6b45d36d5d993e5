// COPY text format: columns separated by tab, rows by newline, NULL as \N, and
// backslash, tab, newline and carriage return escaped inside values. COPY binary format:
// PostgreSQL's "Binary Format" of COPY, integers in network byte order.
#include "hetscale/collector/copy_buffer.hpp"

#include <bit>
#include <array>
#include <charconv>

namespace hetscale::pg {

void CopyBuffer::separator() {
  if (row_started_) data_ += '\t';
  row_started_ = true;
}

namespace {

// Whether COPY's text format escapes the character: backslash, tab, newline, return.
constexpr std::array<bool, 256> escaped_in_copy = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : {'\\', '\t', '\n', '\r'}) table[c] = true;
  return table;
}();

}  // namespace

void CopyBuffer::text(std::string_view value) {
  separator();
  // Runs of ordinary characters are appended whole: most values have nothing to escape.
  std::size_t plain = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (!escaped_in_copy[static_cast<unsigned char>(c)]) continue;
    data_.append(value.substr(plain, i - plain));
    data_ += '\\';
    data_ += c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
    plain = i + 1;
  }
  data_.append(value.substr(plain));
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

std::string_view BinaryCopyBuffer::header() noexcept {
  // Signature, flags (no OIDs), header extension length.
  static constexpr char bytes[] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
  return {bytes, sizeof bytes - 1};
}

std::string_view BinaryCopyBuffer::trailer() noexcept {
  return "\377\377";  // a field count of -1
}

// The low `bytes` bytes of `value`, most significant first, appended at once (a character
// at a time was a tenth of a batch's preparation).
void BinaryCopyBuffer::raw(std::uint64_t value, int bytes) {
  char out[8];
  for (int i = bytes - 1; i >= 0; --i, value >>= 8) out[i] = static_cast<char>(value & 0xff);
  data_.append(out, static_cast<std::size_t>(bytes));
}

void BinaryCopyBuffer::start_row(int fields) {
  raw(static_cast<std::uint16_t>(fields), 2);
}

void BinaryCopyBuffer::int4(int value) {
  raw(4, 4);
  raw(static_cast<std::uint32_t>(value), 4);
}

void BinaryCopyBuffer::int8(long long value) {
  raw(8, 4);
  raw(static_cast<std::uint64_t>(value), 8);
}

void BinaryCopyBuffer::float8(double value) {
  raw(8, 4);
  raw(std::bit_cast<std::uint64_t>(value), 8);  // IEEE 754, as float8send writes it
}

void BinaryCopyBuffer::text(std::string_view value) {
  raw(static_cast<std::uint32_t>(value.size()), 4);
  data_.append(value);
}

}  // namespace hetscale::pg
