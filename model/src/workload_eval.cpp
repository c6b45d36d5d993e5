// The bytecode interpreter: the hot path of every workload evaluation.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "workload_program.hpp"

namespace hetscale::detail {

double apply_unary(OpCode op, double x) {
  switch (op) {
    case OpCode::negate:
      return -x;
    case OpCode::lg:
      return std::log2(x);
    case OpCode::ln:
      return std::log(x);
    case OpCode::log10:
      return std::log10(x);
    case OpCode::sqrt:
      return std::sqrt(x);
    case OpCode::exp:
      return std::exp(x);
    default:
      return x;
  }
}

double apply_binary(OpCode op, double x, double y) {
  switch (op) {
    case OpCode::add:
      return x + y;
    case OpCode::subtract:
      return x - y;
    case OpCode::multiply:
      return x * y;
    case OpCode::divide:
      return x / y;
    case OpCode::power:
      return std::pow(x, y);
    case OpCode::min:
      return std::min(x, y);
    case OpCode::max:
      return std::max(x, y);
    default:
      return x;
  }
}

double apply_power_int(double x, std::uint32_t exponent) {
  double result = 1;
  double base = x;
  for (std::uint32_t n = exponent; n != 0; n >>= 1U) {
    if ((n & 1U) != 0) result *= base;
    base *= base;
  }
  return result;
}

// NaN propagates, so that a bad argument is not hidden by the other ones.
double apply_extreme(OpCode op, const double* first, std::uint32_t count) {
  double result = first[0];
  for (std::uint32_t i = 1; i < count; ++i) {
    if (std::isnan(first[i])) return first[i];
    result = apply_binary(op, result, first[i]);
  }
  return result;
}

namespace {

double run_on(const WorkloadProgram& program, std::span<const double> values, double* stack) {
  double* top = stack;  // one past the top value
  for (const Instruction& in : program.code) {
    switch (in.op) {
      case OpCode::constant:
        *top++ = in.value;
        break;
      case OpCode::parameter:
        *top++ = values[in.count];
        break;
      case OpCode::add:
        --top;
        top[-1] += top[0];
        break;
      case OpCode::subtract:
        --top;
        top[-1] -= top[0];
        break;
      case OpCode::multiply:
        --top;
        top[-1] *= top[0];
        break;
      case OpCode::divide:
        --top;
        top[-1] /= top[0];
        break;
      case OpCode::power:
        --top;
        top[-1] = std::pow(top[-1], top[0]);
        break;
      case OpCode::power_int:
        top[-1] = apply_power_int(top[-1], in.count);
        break;
      case OpCode::negate:
        top[-1] = -top[-1];
        break;
      case OpCode::lg:
      case OpCode::ln:
      case OpCode::log10:
      case OpCode::sqrt:
      case OpCode::exp:
        top[-1] = apply_unary(in.op, top[-1]);
        break;
      case OpCode::min:
      case OpCode::max:
        top -= in.count;
        *top = apply_extreme(in.op, top, in.count);
        ++top;
        break;
    }
  }
  return stack[0];
}

}  // namespace

double run(const WorkloadProgram& program, std::span<const double> values) {
  // Almost every formula fits the fixed buffer; only huge min/max lists or deep nesting
  // need the heap.
  constexpr std::size_t inline_depth = 32;
  if (program.max_stack <= inline_depth) {
    std::array<double, inline_depth> stack;
    return run_on(program, values, stack.data());
  }
  std::vector<double> stack(program.max_stack);
  return run_on(program, values, stack.data());
}

}  // namespace hetscale::detail
