// The compiled form of a workload formula: postfix bytecode over a small value stack,
// parameters resolved to slots. Internal to hetscale_core (not installed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hetscale::detail {

enum class OpCode : std::uint8_t {
  constant,   // push value
  parameter,  // push values[slot]
  add,
  subtract,
  multiply,
  divide,
  power,
  power_int,  // x^n for a small integer constant n (exact repeated multiplication)
  negate,
  lg,
  ln,
  log10,
  sqrt,
  exp,
  min,
  max  // pop `count` values, push the extreme
};

struct Instruction {
  OpCode op = OpCode::constant;
  std::uint32_t count = 0;  // slot (parameter), exponent (power_int), arity (min/max)
  double value = 0;         // constant
};

struct WorkloadProgram {
  std::vector<Instruction> code;
  std::vector<std::string> parameters;  // slot i holds parameters[i]
  std::size_t max_stack = 0;            // deepest stack the code reaches
};

/// Runs the program; `values` holds one value per parameter slot (not checked here).
double run(const WorkloadProgram& program, std::span<const double> values);

/// Applies one operator to constants; shared by constant folding and run() so that a
/// folded expression gives exactly what the unfolded one would.
double apply_unary(OpCode op, double x);
double apply_binary(OpCode op, double x, double y);
double apply_power_int(double x, std::uint32_t exponent);
/// min or max of count >= 1 values; a NaN among them is the result.
double apply_extreme(OpCode op, const double* first, std::uint32_t count);

}  // namespace hetscale::detail
