// Splits a workload formula into tokens, each with its 1-based column.
// Internal to hetscale_core (not installed).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale::detail {

enum class TokenKind {
  number,
  identifier,
  plus,
  minus,
  star,
  slash,
  caret,
  open,
  close,
  comma,
  end
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::string_view text;   // as written; empty for end
  std::size_t column = 0;  // 1-based; one past the last character for end
  double number = 0;       // value when kind == number
};

/// Tokenises `text`; the last token is always `end`. Throws ExpressionError on an
/// unexpected character, a malformed number or a number out of range.
std::vector<Token> tokenize(std::string_view text);

/// How a token is named in error messages: "'x'" or "end of expression".
std::string describe(const Token& token);

}  // namespace hetscale::detail
