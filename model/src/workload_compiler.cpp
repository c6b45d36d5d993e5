#include "workload_compiler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "hetscale/base/error.hpp"
#include "workload_lexer.hpp"

namespace hetscale::detail {
namespace {

struct Function {
  std::string_view name;
  OpCode op;
  std::uint32_t min_args;
  std::uint32_t max_args;
};

constexpr std::uint32_t unlimited = std::numeric_limits<std::uint32_t>::max();

constexpr std::array<Function, 8> functions{{
    {"lg", OpCode::lg, 1, 1},
    {"log2", OpCode::lg, 1, 1},
    {"ln", OpCode::ln, 1, 1},
    {"log10", OpCode::log10, 1, 1},
    {"sqrt", OpCode::sqrt, 1, 1},
    {"exp", OpCode::exp, 1, 1},
    {"min", OpCode::min, 2, unlimited},
    {"max", OpCode::max, 2, unlimited},
}};

const Function* find_function(std::string_view name) {
  const auto* it = std::find_if(functions.begin(), functions.end(),
                                [&](const Function& f) { return f.name == name; });
  return it == functions.end() ? nullptr : it;
}

// Deep enough for any real formula, shallow enough that recursion cannot overflow.
constexpr int max_nesting = 200;
// x^n with 0 <= n <= this is computed by exact repeated multiplication.
constexpr double max_int_exponent = 64;

std::string arity_message(const Function& f, std::uint32_t got) {
  const bool exact = f.min_args == f.max_args;
  const std::string count = std::to_string(f.min_args);
  const std::string noun = f.min_args == 1 ? " argument" : " arguments";
  return "function '" + std::string(f.name) + "' takes " + (exact ? "" : "at least ") + count +
         noun + ", got " + std::to_string(got);
}

class Compiler {
 public:
  explicit Compiler(std::string_view text) : tokens_(tokenize(text)) {}

  WorkloadProgram compile() {
    if (current().kind == TokenKind::end) throw ExpressionError(1, "empty expression");
    expression();
    if (current().kind == TokenKind::close)
      throw ExpressionError(current().column, "unmatched ')'");
    if (current().kind != TokenKind::end) {
      throw ExpressionError(current().column, "trailing input " + describe(current()));
    }
    program_.max_stack = stack_depth();
    return std::move(program_);
  }

 private:
  [[nodiscard]] const Token& current() const { return tokens_[pos_]; }
  [[nodiscard]] const Token& next() const {
    return tokens_[std::min(pos_ + 1, tokens_.size() - 1)];
  }
  void advance() { ++pos_; }

  void expression() {
    term();
    while (current().kind == TokenKind::plus || current().kind == TokenKind::minus) {
      const OpCode op = current().kind == TokenKind::plus ? OpCode::add : OpCode::subtract;
      advance();
      term();
      emit_binary(op);
    }
  }

  void term() {
    unary();
    while (current().kind == TokenKind::star || current().kind == TokenKind::slash) {
      const OpCode op = current().kind == TokenKind::star ? OpCode::multiply : OpCode::divide;
      advance();
      unary();
      emit_binary(op);
    }
  }

  void unary() {
    if (++depth_ > max_nesting)
      throw ExpressionError(current().column, "expression nested too deeply");
    if (current().kind == TokenKind::minus) {
      advance();
      unary();
      emit_unary(OpCode::negate);
    } else {
      power();
    }
    --depth_;
  }

  void power() {
    primary();
    if (current().kind == TokenKind::caret) {
      advance();
      unary();
      emit_power();
    }
  }

  void primary() {
    const Token& token = current();
    switch (token.kind) {
      case TokenKind::number:
        emit_constant(token.number);
        advance();
        return;
      case TokenKind::identifier:
        if (next().kind == TokenKind::open) return call();
        if (find_function(token.text) != nullptr) {
          throw ExpressionError(next().column,
                                "expected '(' after function '" + std::string(token.text) + "'");
        }
        emit_parameter(token.text);
        advance();
        return;
      case TokenKind::open: {
        const std::size_t open_column = token.column;
        advance();
        expression();
        expect_close(open_column);
        return;
      }
      case TokenKind::end:
        throw ExpressionError(token.column, "unexpected end of expression");
      default:
        throw ExpressionError(token.column, "unexpected token " + describe(token));
    }
  }

  void call() {
    const Token& name = current();
    const Function* function = find_function(name.text);
    if (function == nullptr) {
      throw ExpressionError(name.column, "unknown function '" + std::string(name.text) + "'");
    }
    advance();
    const std::size_t open_column = current().column;
    advance();
    std::uint32_t args = 0;
    if (current().kind != TokenKind::close) {
      expression();
      ++args;
      while (current().kind == TokenKind::comma) {
        advance();
        expression();
        ++args;
      }
    }
    expect_close(open_column);
    if (args < function->min_args || args > function->max_args) {
      throw ExpressionError(name.column, arity_message(*function, args));
    }
    if (function->op == OpCode::min || function->op == OpCode::max) {
      emit_extreme(function->op, args);
    } else {
      emit_unary(function->op);
    }
  }

  void expect_close(std::size_t open_column) {
    if (current().kind != TokenKind::close) {
      throw ExpressionError(current().column,
                            "missing ')' for '(' at column " + std::to_string(open_column));
    }
    advance();
  }

  // --- emission, with constant folding of operands known at compile time ---

  // True when the last n instructions are constant pushes: then they are exactly the
  // n topmost operands (a longer operand never ends with a constant push).
  [[nodiscard]] bool last_are_constants(std::size_t n) const {
    const auto& code = program_.code;
    if (code.size() < n) return false;
    return std::all_of(code.end() - static_cast<std::ptrdiff_t>(n), code.end(),
                       [](const Instruction& in) { return in.op == OpCode::constant; });
  }

  void emit_constant(double value) { program_.code.push_back({OpCode::constant, 0, value}); }

  void emit_parameter(std::string_view name) {
    auto& names = program_.parameters;
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) it = names.insert(names.end(), std::string(name));
    program_.code.push_back({OpCode::parameter, static_cast<std::uint32_t>(it - names.begin()), 0});
  }

  void emit_unary(OpCode op) {
    auto& code = program_.code;
    if (last_are_constants(1)) {
      code.back().value = apply_unary(op, code.back().value);
    } else {
      code.push_back({op, 0, 0});
    }
  }

  void emit_binary(OpCode op) {
    auto& code = program_.code;
    if (last_are_constants(2)) {
      const double right = code.back().value;
      code.pop_back();
      code.back().value = apply_binary(op, code.back().value, right);
    } else {
      code.push_back({op, 0, 0});
    }
  }

  void emit_power() {
    auto& code = program_.code;
    if (!last_are_constants(2) && last_are_constants(1)) {
      const double exponent = code.back().value;
      if (exponent >= 0 && exponent <= max_int_exponent && exponent == std::floor(exponent)) {
        code.back() = {OpCode::power_int, static_cast<std::uint32_t>(exponent), 0};
        return;
      }
    }
    emit_binary(OpCode::power);
  }

  void emit_extreme(OpCode op, std::uint32_t count) {
    auto& code = program_.code;
    if (last_are_constants(count)) {
      std::vector<double> values;
      for (auto it = code.end() - count; it != code.end(); ++it) values.push_back(it->value);
      code.resize(code.size() - count);
      emit_constant(apply_extreme(op, values.data(), count));
    } else {
      code.push_back({op, count, 0});
    }
  }

  [[nodiscard]] std::size_t stack_depth() const {
    std::size_t depth = 0;
    std::size_t deepest = 0;
    for (const Instruction& in : program_.code) {
      switch (in.op) {
        case OpCode::constant:
        case OpCode::parameter:
          ++depth;
          break;
        case OpCode::add:
        case OpCode::subtract:
        case OpCode::multiply:
        case OpCode::divide:
        case OpCode::power:
          --depth;
          break;
        case OpCode::min:
        case OpCode::max:
          depth -= in.count - 1;
          break;
        default:
          break;
      }
      deepest = std::max(deepest, depth);
    }
    return deepest;
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  WorkloadProgram program_;
};

}  // namespace

WorkloadProgram compile_workload(std::string_view text) {
  return Compiler(text).compile();
}

}  // namespace hetscale::detail
