// Refinement rounds (`hetscale jobgen --refine`): from the speed-efficiencies measured on
// each machine set, the parameter expected to reach the target, and a follow-up array
// around it at the spec's relative steps (STAS searched with 2% steps run by run; here
// a round runs +/-2% and +/-4% at once). With [refine] precision, a set whose runs bracket
// the target gets repetitions at the two sizes that bracket it instead, as many as the
// noise observed asks, until the required parameter's 95% interval is that precise or its
// budget of runs is spent (docs/experiment-spec.md, "Repetitions by precision"). Pure
// functions: the caller brings the measurements (from the database) and renders the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/model/efficiency_fit.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale::jobgen {

struct RefineSettings {
  double target = 0;                 // target E_s
  std::vector<double> steps;         // relative, each used + and -
  double tolerance = 0;              // reached when |E_s - target| <= tolerance * target
  std::uint32_t max_rounds = 0;
  std::uint32_t round = 0;           // rounds already run after the first
  bool integer = true;               // parameter values are whole numbers
  std::optional<double> precision{};  // relative half-width asked; absent: tolerance alone
  std::uint32_t max_runs_per_set = default_max_runs_per_set;  // with precision: the budget
  std::string experiment{};          // the experiment's name: the interval's seed, as analyze's
  std::size_t runs_per_repetition = 1;  // one run per value of [slurm] weights

  static RefineSettings from(const ExperimentSpec& spec, std::uint32_t round);
};

struct SetRefinement {
  enum class Status {
    reached,    // a measured size is within tolerance of the target: no new jobs
    refine,     // parameter_values holds the follow-up sizes, none of them measured yet
    exhausted,  // max_rounds spent without reaching the target: no new jobs
    no_data,    // nothing measured on this set: no new jobs (rerun the first round)
    already_measured,  // every follow-up size is measured already: no new jobs
    repeat,     // precision: more repetitions of parameter_values, numbered as `repetitions`
    precision_not_reached  // precision: the budget or max_rounds spent first: no new jobs
  };
  std::size_t set_index = 0;
  Status status = Status::no_data;
  double estimate = 0;                    // the parameter expected to reach the target
  std::vector<double> parameter_values;   // ascending; for `refine` and `repeat`
  std::string explanation;                // one line for users
  // For `repeat`: per value, the new repetition numbers (after those stored at that size).
  std::vector<std::vector<std::uint32_t>> repetitions{};
};

/// The status's name, as said to users ("precision_not_reached").
std::string_view to_string(SetRefinement::Status status);

/// Decides one set's next step from its measured (parameter, E_s) points; `next_repetition`
/// gives per size the first repetition number its runs have not used (next_repetitions).
SetRefinement refine_set(std::size_t set_index, const std::vector<EfficiencyPoint>& points,
                         const std::map<double, std::uint32_t>& next_repetition, const Workload& workload,
                         const RefineSettings& settings);

/// The estimate when the target lies outside the measured sizes: fits the
/// constant-overhead model 1/E_s = a + b/W to the points (E_s rises with W towards the
/// plateau 1/a) and solves it for the target. The step is bounded to a factor 4 in W
/// per round; without a usable fit the work is doubled (or halved).
double extrapolate_parameter(const std::vector<EfficiencyPoint>& points, const Workload& workload,
                             double target);

/// The next round (number + 1): every set of the previous one, with the new sizes (or the
/// sizes and repetitions) of those that need jobs and no sizes for the others (they get no
/// script).
Round refined_round(const Round& previous, const std::vector<SetRefinement>& refinements);

}  // namespace hetscale::jobgen
