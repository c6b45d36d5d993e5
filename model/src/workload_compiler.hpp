// Parses a workload formula and compiles it to bytecode. Internal to hetscale_core.
#pragma once

#include <string_view>

#include "workload_program.hpp"

namespace hetscale::detail {

/// Grammar (lowest to highest precedence):
///   expression := term (('+' | '-') term)*
///   term       := unary (('*' | '/') unary)*
///   unary      := '-' unary | power            (so -N^2 = -(N^2))
///   power      := primary ('^' unary)?         (right-associative: 2^3^2 = 2^9)
///   primary    := number | name | name '(' expression (',' expression)* ')' | '(' expression ')'
/// Throws ExpressionError with the 1-based column of the offending token.
WorkloadProgram compile_workload(std::string_view text);

}  // namespace hetscale::detail
