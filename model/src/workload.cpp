// Workload: a parsed formula (or a built-in reference code) ready for fast evaluation.
#include "hetscale/model/workload.hpp"

#include <array>
#include <utility>

#include "hetscale/base/error.hpp"
#include "workload_compiler.hpp"

namespace hetscale {
namespace {

struct Builtin {
  std::string_view name;
  std::string_view formula;
};

constexpr std::array<Builtin, 4> builtins{{
    {"mm", builtin_workload::mm},
    {"ge", builtin_workload::ge},
    {"conv2d", builtin_workload::conv2d},
    {"lu", builtin_workload::lu},
}};

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// The formula a whole expression stands for: the built-in's when it names one.
std::string_view expand_builtin(std::string_view text) {
  const std::string_view name = trim(text);
  for (const Builtin& b : builtins) {
    if (b.name == name) return b.formula;
  }
  return text;
}

}  // namespace

struct Workload::Program {
  std::string text;
  std::string formula;
  detail::WorkloadProgram code;
};

Workload::Workload(std::unique_ptr<Program> program) : program_(std::move(program)) {}
Workload::Workload(const Workload& other) : program_(std::make_unique<Program>(*other.program_)) {}
Workload& Workload::operator=(const Workload& other) {
  if (this != &other) program_ = std::make_unique<Program>(*other.program_);
  return *this;
}
Workload::Workload(Workload&&) noexcept = default;
Workload& Workload::operator=(Workload&&) noexcept = default;
Workload::~Workload() = default;

Workload Workload::parse(std::string_view text) {
  const std::string_view formula = expand_builtin(text);
  auto program = std::make_unique<Program>();
  program->code = detail::compile_workload(formula);
  program->text = std::string(text);
  program->formula = std::string(formula);
  return Workload(std::move(program));
}

const std::string& Workload::text() const noexcept {
  return program_->text;
}
const std::string& Workload::formula() const noexcept {
  return program_->formula;
}
const std::vector<std::string>& Workload::parameters() const noexcept {
  return program_->code.parameters;
}

double Workload::evaluate(std::span<const double> values) const {
  const auto& names = program_->code.parameters;
  if (values.size() != names.size()) {
    throw Error("workload '" + program_->text + "' takes " + std::to_string(names.size()) +
                " parameter value(s), got " + std::to_string(values.size()));
  }
  return detail::run(program_->code, values);
}

double Workload::evaluate(const ParameterValues& values) const {
  const auto& names = program_->code.parameters;
  // Small and fixed-size in practice; a vector keeps this path allocation-light.
  std::vector<double> ordered;
  ordered.reserve(names.size());
  for (const std::string& name : names) {
    const auto it = values.find(name);
    if (it == values.end()) {
      throw Error("workload '" + program_->text + "' needs a value for parameter '" + name + "'");
    }
    ordered.push_back(it->second);
  }
  return detail::run(program_->code, ordered);
}

}  // namespace hetscale
