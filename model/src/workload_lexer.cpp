#include "workload_lexer.hpp"

#include <cctype>
#include <charconv>

#include "hetscale/base/error.hpp"

namespace hetscale::detail {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_identifier_char(char c) {
  return is_identifier_start(c) || is_digit(c);
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_digits(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  return pos;
}

// Numbers: 12, 2.5, .5, 1., 1e6, 2.5E-3. An exponent marker must be followed by digits.
Token lex_number(std::string_view text, std::size_t start) {
  std::size_t pos = skip_digits(text, start);
  if (pos < text.size() && text[pos] == '.') pos = skip_digits(text, pos + 1);
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    std::size_t exponent = pos + 1;
    if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) ++exponent;
    const std::size_t digits_end = skip_digits(text, exponent);
    if (digits_end == exponent) {
      throw ExpressionError(start + 1, "malformed number '" +
                                           std::string(text.substr(start, exponent - start)) + "'");
    }
    pos = digits_end;
  }
  Token token{TokenKind::number, text.substr(start, pos - start), start + 1, 0};
  const char* first = token.text.data();
  const char* last = first + token.text.size();
  const auto [ptr, ec] = std::from_chars(first, last, token.number);
  // from_chars reports both overflow (1e999) and underflow (1e-999) as out of range.
  if (ec == std::errc::result_out_of_range) {
    throw ExpressionError(token.column, "number out of range '" + std::string(token.text) + "'");
  }
  if (ec != std::errc() || ptr != last) {
    throw ExpressionError(token.column, "malformed number '" + std::string(token.text) + "'");
  }
  return token;
}

Token lex_identifier(std::string_view text, std::size_t start) {
  std::size_t pos = start + 1;
  while (pos < text.size() && is_identifier_char(text[pos])) ++pos;
  return Token{TokenKind::identifier, text.substr(start, pos - start), start + 1, 0};
}

TokenKind punctuation_kind(char c, std::size_t column) {
  switch (c) {
    case '+':
      return TokenKind::plus;
    case '-':
      return TokenKind::minus;
    case '*':
      return TokenKind::star;
    case '/':
      return TokenKind::slash;
    case '^':
      return TokenKind::caret;
    case '(':
      return TokenKind::open;
    case ')':
      return TokenKind::close;
    case ',':
      return TokenKind::comma;
    default:
      break;
  }
  // Bytes that would not print (UTF-8, control characters) are shown in hex.
  const auto byte = static_cast<unsigned char>(c);
  if (std::isprint(byte) == 0) {
    constexpr std::string_view hex = "0123456789abcdef";
    throw ExpressionError(
        column, std::string("unexpected character 0x") + hex[byte >> 4U] + hex[byte & 0xfU]);
  }
  throw ExpressionError(column, "unexpected character '" + std::string(1, c) + "'");
}

}  // namespace

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (is_space(c)) {
      ++pos;
    } else if (is_digit(c) || (c == '.' && pos + 1 < text.size() && is_digit(text[pos + 1]))) {
      tokens.push_back(lex_number(text, pos));
      pos += tokens.back().text.size();
    } else if (is_identifier_start(c)) {
      tokens.push_back(lex_identifier(text, pos));
      pos += tokens.back().text.size();
    } else {
      tokens.push_back(Token{punctuation_kind(c, pos + 1), text.substr(pos, 1), pos + 1, 0});
      ++pos;
    }
  }
  tokens.push_back(Token{TokenKind::end, {}, text.size() + 1, 0});
  return tokens;
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::end) return "end of expression";
  return "'" + std::string(token.text) + "'";
}

}  // namespace hetscale::detail
