// Slurm host-list expressions: expansion (a small recursive-descent parser) and
// compression (the same run-merging as `scontrol show hostlist`). docs/hostlists.md
// lists where hetscale is stricter than Slurm 22.05.
#include "hetscale/site/hostlist.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

constexpr std::size_t max_digits = 18;  // every such number fits in 64 bits

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_name_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '.' ||
         c == '_';
}

std::string quoted(char c) {
  return std::string("'") + c + "'";
}

// One bracket range "lo-hi"; width is the length of lo as written (Slurm pads every
// number of the range to it: "[01-100]" gives n01 ... n100).
struct Range {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::size_t width = 0;
  [[nodiscard]] std::size_t count() const { return static_cast<std::size_t>(hi - lo + 1); }
  // Characters of the longest number of the range ("[8-10]": 2).
  [[nodiscard]] std::size_t max_chars() const { return std::max(width, std::to_string(hi).size()); }
};

// A piece of a term: either literal text or the ranges of one bracket.
struct Piece {
  std::string text;
  std::vector<Range> ranges;
  [[nodiscard]] bool is_bracket() const { return !ranges.empty(); }
  [[nodiscard]] std::size_t count() const {
    std::size_t n = 0;
    for (const Range& r : ranges) n += r.count();
    return n;
  }
  [[nodiscard]] std::size_t max_chars() const {
    if (!is_bracket()) return text.size();
    std::size_t n = 0;
    for (const Range& r : ranges) n = std::max(n, r.max_chars());
    return n;
  }
};

std::string padded(std::uint64_t value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

class Parser {
 public:
  Parser(std::string_view text, const HostlistLimits& limits) : text_(text), limits_(limits) {}

  std::vector<std::string> expand(std::vector<HostlistTerm>* terms) {
    if (text_.size() > limits_.max_length)
      fail(1, "host list too long (more than " + std::to_string(limits_.max_length) +
                  " characters)");
    std::vector<std::string> hosts;
    while (true) {
      std::size_t term_start = pos_;
      if (terms != nullptr) terms->push_back(HostlistTerm{term_start + 1, hosts.size()});
      std::vector<Piece> pieces = term();
      append_product(pieces, term_start, hosts);
      if (at_end()) break;
      ++pos_;  // the ',' between terms (term() stops only there or at the end)
    }
    return hosts;
  }

 private:
  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek() const { return text_[pos_]; }
  [[nodiscard]] std::size_t column() const { return pos_ + 1; }

  [[noreturn]] void fail(std::size_t column, const std::string& message) const {
    throw ExpressionError(column, message);
  }

  std::vector<Piece> term() {
    std::vector<Piece> pieces;
    std::size_t brackets = 0;
    while (!at_end() && peek() != ',') {
      char c = peek();
      if (c == '[') {
        if (++brackets > limits_.max_brackets)
          fail(column(), "more than " + std::to_string(limits_.max_brackets) +
                             " bracket groups in one host name");
        pieces.push_back(bracket());
      } else if (c == ']') {
        fail(column(), "unbalanced ']'");
      } else if (is_name_char(c)) {
        pieces.push_back(literal());
      } else {
        fail(column(), "invalid character " + quoted(c) + " in host name");
      }
    }
    if (pieces.empty()) fail(column(), "empty host name");
    return pieces;
  }

  Piece literal() {
    std::size_t start = pos_;
    while (!at_end() && is_name_char(peek())) ++pos_;
    return Piece{std::string(text_.substr(start, pos_ - start)), {}};
  }

  Piece bracket() {
    std::size_t open = pos_++;
    Piece piece;
    while (true) {
      piece.ranges.push_back(range(open));
      if (at_end()) fail(open + 1, "unbalanced '['");
      char c = peek();
      ++pos_;
      if (c == ']') break;
      if (c != ',') fail(pos_, unexpected_in_bracket(c));
    }
    if (piece.count() > limits_.max_hosts) fail(open + 1, too_many_hosts());
    return piece;
  }

  static std::string unexpected_in_bracket(char c) {
    if (c == '[') return "nested '['";
    return "invalid character " + quoted(c) + " in range";
  }

  Range range(std::size_t open) {
    std::size_t start = column();
    std::optional<std::string> lo = number();
    if (!lo) {
      expect_number_here(open);
      fail(start, "empty range");
    }
    Range r{to_u64(*lo), 0, lo->size()};
    r.hi = r.lo;
    if (!at_end() && peek() == '-') {
      ++pos_;
      std::optional<std::string> hi = number();
      if (!hi) {
        expect_number_here(open);
        fail(column(), "missing upper bound of range");
      }
      r.hi = to_u64(*hi);
      if (r.hi < r.lo) fail(start, "descending range " + *lo + "-" + *hi);
    }
    if (r.hi - r.lo >= limits_.max_hosts) fail(start, too_many_hosts());
    return r;
  }

  // Where a number is missing, a stray character or the end of text says more than
  // "empty range" does.
  void expect_number_here(std::size_t open) const {
    if (at_end()) fail(open + 1, "unbalanced '['");
    if (peek() != ',' && peek() != ']') fail(column(), unexpected_in_bracket(peek()));
  }

  std::optional<std::string> number() {
    std::size_t start = pos_;
    while (!at_end() && is_digit(peek())) ++pos_;
    if (pos_ == start) return std::nullopt;
    if (pos_ - start > max_digits) fail(start + 1, "number too large");
    return std::string(text_.substr(start, pos_ - start));
  }

  static std::uint64_t to_u64(const std::string& digits) {
    std::uint64_t value = 0;
    for (char c : digits) value = value * 10 + static_cast<std::uint64_t>(c - '0');
    return value;
  }

  [[nodiscard]] std::string too_many_hosts() const {
    return "too many hosts (more than " + std::to_string(limits_.max_hosts) + ")";
  }

  // Cartesian product of the pieces, leftmost bracket varying slowest (as Slurm does for
  // "n[1-2]x[1-2]"). The number of hosts and the characters of their names are bounded
  // before anything is built; the product is walked like an odometer, without recursion.
  void append_product(const std::vector<Piece>& pieces, std::size_t term_start,
                      std::vector<std::string>& hosts) {
    std::size_t total = 1;
    std::size_t name_chars = 0;  // an upper bound on one name's length
    for (const Piece& p : pieces) {
      name_chars += p.max_chars();
      if (!p.is_bracket()) continue;
      total *= p.count();  // each factor <= max_hosts, so this cannot overflow before the check
      if (total + hosts.size() > limits_.max_hosts) fail(term_start + 1, too_many_hosts());
    }
    if (total + hosts.size() > limits_.max_hosts) fail(term_start + 1, too_many_hosts());
    // total <= 1e6 and name_chars <= max_length + digits, so the product fits in 64 bits.
    bytes_ += total * name_chars;
    if (bytes_ > limits_.max_bytes)
      fail(term_start + 1, "host names too long in total (more than " +
                               std::to_string(limits_.max_bytes) + " characters)");
    // Grow geometrically: an exact reserve per term would copy every host once per term.
    if (hosts.capacity() < hosts.size() + total)
      hosts.reserve(std::max(hosts.size() + total, 2 * hosts.capacity()));

    // One digit wheel per bracket: which range, and which value inside it.
    struct Wheel {
      const Piece* piece;
      std::size_t range = 0;
      std::uint64_t value = 0;
    };
    std::vector<Wheel> wheels;
    for (const Piece& p : pieces)
      if (p.is_bracket()) wheels.push_back({&p, 0, p.ranges[0].lo});
    while (true) {
      std::string name;
      name.reserve(name_chars);
      std::size_t w = 0;
      for (const Piece& p : pieces) {
        if (!p.is_bracket()) {
          name += p.text;
        } else {
          const Wheel& wheel = wheels[w++];
          name += padded(wheel.value, p.ranges[wheel.range].width);
        }
      }
      hosts.push_back(std::move(name));
      // Advance the rightmost wheel; carry leftwards; done when the leftmost wraps.
      std::size_t k = wheels.size();
      while (k > 0) {
        Wheel& wheel = wheels[k - 1];
        const std::vector<Range>& ranges = wheel.piece->ranges;
        if (wheel.value < ranges[wheel.range].hi) {
          ++wheel.value;
          break;
        }
        if (wheel.range + 1 < ranges.size()) {
          wheel.value = ranges[++wheel.range].lo;
          break;
        }
        wheel.range = 0;
        wheel.value = ranges[0].lo;
        --k;
      }
      if (k == 0) return;
    }
  }

  std::string_view text_;
  HostlistLimits limits_;
  std::size_t pos_ = 0;
  std::size_t bytes_ = 0;  // bound on the characters of the hosts expanded so far
};

// --- compression -------------------------------------------------------------------

// A host name split as Slurm does: prefix + trailing decimal number (if any).
struct SplitName {
  std::string_view prefix;
  std::optional<std::uint64_t> number;
  std::size_t min_width = 0;  // widths w with which "%0*lu" reproduces the digits exactly
  std::size_t max_width = 0;
};

SplitName split(std::string_view host) {
  std::size_t start = host.size();
  while (start > 0 && is_digit(host[start - 1])) --start;
  std::size_t digits = host.size() - start;
  if (digits == 0 || digits > max_digits) return SplitName{host, std::nullopt, 0, 0};
  std::uint64_t value = 0;
  for (char c : host.substr(start)) value = value * 10 + static_cast<std::uint64_t>(c - '0');
  bool zero_padded = digits > 1 && host[start] == '0';
  // "05" prints only at width 2; "10" prints the same at width 1 or 2.
  return SplitName{host.substr(0, start), value, zero_padded ? digits : 1, digits};
}

// A run of consecutive numbers sharing a prefix and a compatible width.
struct Run {
  std::string_view prefix;
  std::optional<std::uint64_t> lo;  // nullopt: a name without a number, printed as is
  std::uint64_t hi = 0;
  std::size_t min_width = 0;
  std::size_t max_width = 0;

  bool absorb(const SplitName& name) {
    if (!lo || !name.number || name.prefix != prefix || hi == UINT64_MAX || *name.number != hi + 1)
      return false;
    std::size_t low = std::max(min_width, name.min_width);
    std::size_t high = std::min(max_width, name.max_width);
    if (low > high) return false;
    hi = *name.number;
    min_width = low;
    max_width = high;
    return true;
  }

  [[nodiscard]] std::string bounds() const {
    std::string out = padded(*lo, min_width);
    if (hi != *lo) out += "-" + padded(hi, min_width);
    return out;
  }
};

std::vector<Run> runs_of(std::span<const std::string> hosts) {
  std::vector<Run> runs;
  for (const std::string& host : hosts) {
    SplitName name = split(host);
    if (!runs.empty() && runs.back().absorb(name)) continue;
    if (name.number)
      runs.push_back(Run{name.prefix, name.number, *name.number, name.min_width, name.max_width});
    else
      runs.push_back(Run{name.prefix, std::nullopt, 0, 0, 0});
  }
  return runs;
}

bool same_bracket(const Run& a, const Run& b) {
  return a.lo && b.lo && a.prefix == b.prefix;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression,
                                         const HostlistLimits& limits) {
  return Parser(expression, limits).expand(nullptr);
}

std::vector<std::string> expand_hostlist(std::string_view expression,
                                         std::vector<HostlistTerm>& terms,
                                         const HostlistLimits& limits) {
  terms.clear();
  return Parser(expression, limits).expand(&terms);
}

std::string compress_hostlist(std::span<const std::string> hosts) {
  std::vector<Run> runs = runs_of(hosts);
  std::string out;
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t end = i + 1;
    while (end < runs.size() && same_bracket(runs[i], runs[end])) ++end;
    if (!out.empty()) out += ',';
    out += runs[i].prefix;
    if (!runs[i].lo) {
      // a name without a number: prefix is the whole name
    } else if (end - i == 1 && runs[i].hi == *runs[i].lo) {
      out += runs[i].bounds();
    } else {
      out += '[';
      for (std::size_t k = i; k < end; ++k) out += (k > i ? "," : "") + runs[k].bounds();
      out += ']';
    }
    i = end;
  }
  return out;
}

bool natural_host_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i;
      std::size_t je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Compare the digit runs as numbers: strip leading zeros, then length, then digits.
      std::size_t is = i;
      std::size_t js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      if (const int c = a.substr(is, ie - is).compare(b.substr(js, je - js)); c != 0) return c < 0;
      if (ie - i != je - j) return ie - i < je - j;  // same number, less padding first
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> sort_hostnames(std::span<const std::string> hosts) {
  std::vector<std::string> sorted(hosts.begin(), hosts.end());
  std::sort(sorted.begin(), sorted.end(), natural_host_less);
  return sorted;
}

}  // namespace hetscale
