// Workload formulas W(params): the user's hint of how much work a run does
// (docs/science.md sections 1 and 2). Parsed once into a compact program, evaluated fast.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/site/parameter_values.hpp"

namespace hetscale {

class Workload {
 public:
  /// Parses an expression: numbers (1e6), named parameters, + - * / ^ (right-assoc.),
  /// unary minus, parentheses, lg/log2, ln, log10, sqrt, exp, min, max. A bare name of a
  /// built-in reference code (`mm`, `ge`, `conv2d`, `lu`) stands for its formula in the
  /// parameter N (docs/workload.md). Throws ExpressionError with the 1-based column.
  static Workload parse(std::string_view text);

  /// The expression as given by the user (a built-in keeps its short name).
  [[nodiscard]] const std::string& text() const noexcept;
  /// The expanded formula (for a built-in, the formula it stands for).
  [[nodiscard]] const std::string& formula() const noexcept;
  /// Parameter names in order of first appearance.
  [[nodiscard]] const std::vector<std::string>& parameters() const noexcept;

  /// Domain errors are not exceptions: lg(-1) or sqrt(-1) give NaN, ln(0) -inf, 1/0 inf
  /// (IEEE 754); callers must reject a non-finite W (docs/workload.md).
  /// Evaluates with values given in the order of parameters(); the fast path. Throws
  /// Error when the number of values differs from parameters().size().
  [[nodiscard]] double evaluate(std::span<const double> values) const;
  /// Evaluates with named values; throws Error naming any missing parameter. Names the
  /// formula does not use are ignored.
  [[nodiscard]] double evaluate(const ParameterValues& values) const;

  Workload(const Workload&);
  Workload& operator=(const Workload&);
  Workload(Workload&&) noexcept;
  Workload& operator=(Workload&&) noexcept;
  ~Workload();

 private:
  struct Program;
  explicit Workload(std::unique_ptr<Program> program);
  std::unique_ptr<Program> program_;
};

/// Formulas of the bundled kernels: the three reference codes exactly as in docs/science.md
/// section 1, and the blocked LU factorisation's leading term (docs/kernels.md).
namespace builtin_workload {
inline constexpr std::string_view mm = "2*N^3";
inline constexpr std::string_view ge = "2/3*N^3 - 1/2*N^2 - (3 + 1/6)*N + 3";
inline constexpr std::string_view conv2d = "66*N^2*lg(N) + 21*N^2 + 84*N*lg(N)";
inline constexpr std::string_view lu = "2/3*N^3";
}  // namespace builtin_workload

}  // namespace hetscale
