// The isospeed-efficiency model, docs/science.md section 1, one function per formula.
#include "hetscale/model/isospeed.hpp"

#include <cmath>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale::isospeed {
namespace {

using detail::shortest_text;

// Every quantity of the model is a rate, a time or an amount of work: finite, and
// (depending on the symbol) strictly positive or at least zero.
void require_positive(double value, const char* what) {
  if (!(std::isfinite(value) && value > 0)) {
    throw Error(std::string(what) + " must be a positive finite number, got " +
                shortest_text(value));
  }
}

void require_non_negative(double value, const char* what) {
  if (!(std::isfinite(value) && value >= 0)) {
    throw Error(std::string(what) + " must be a finite number >= 0, got " + shortest_text(value));
  }
}

}  // namespace

double system_marked_speed(std::span<const double> node_speeds) {
  if (node_speeds.empty()) throw Error("marked speed C of an empty system is undefined");
  double sum = 0;
  for (const double c : node_speeds) {
    require_positive(c, "node marked speed C_i");
    sum += c;
  }
  return sum;
}

double achieved_speed(double work, double seconds) {
  require_positive(work, "work W");
  require_positive(seconds, "time T");
  return work / seconds;
}

double speed_efficiency(double work, double seconds, double marked_speed) {
  require_positive(marked_speed, "marked speed C");
  return achieved_speed(work, seconds) / marked_speed;
}

double seconds_at_efficiency(double work, double marked_speed, double efficiency) {
  require_positive(work, "work W");
  require_positive(marked_speed, "marked speed C");
  require_positive(efficiency, "speed-efficiency E_s");
  return work / (marked_speed * efficiency);
}

double psi(double marked_speed, double work, double marked_speed_next, double work_next) {
  require_positive(marked_speed, "marked speed C");
  require_positive(work, "work W");
  require_positive(marked_speed_next, "marked speed C'");
  require_positive(work_next, "work W'");
  return (marked_speed_next * work) / (marked_speed * work_next);
}

double psi_theorem1(double t0, double overhead, double t0_next, double overhead_next) {
  require_non_negative(t0, "sequential time t0");
  require_non_negative(overhead, "overhead T0");
  require_non_negative(t0_next, "sequential time t0'");
  require_non_negative(overhead_next, "overhead T0'");
  if (t0 + overhead <= 0 || t0_next + overhead_next <= 0) {
    throw Error("Theorem 1 needs t0 + T0 > 0 and t0' + T0' > 0 (with no overhead at all psi is 1)");
  }
  return (t0 + overhead) / (t0_next + overhead_next);
}

double psi_corollary2(double overhead, double overhead_next) {
  require_positive(overhead, "overhead T0");
  require_positive(overhead_next, "overhead T0'");
  return overhead / overhead_next;
}

namespace {

// C beta W - C' beta W + C T0: shared denominator/numerator of Theorem 2. It must be
// positive, or no work W' on the larger system reaches the same E_s (the sequential
// part, which does not shrink, eats all the gain).
double theorem2_term(double marked_speed, double marked_speed_next, double beta, double work,
                     double overhead, double overhead_next) {
  require_positive(marked_speed, "marked speed C");
  require_positive(marked_speed_next, "marked speed C'");
  require_non_negative(beta, "beta");
  require_positive(work, "work W");
  require_non_negative(overhead, "overhead T0");
  require_positive(overhead_next, "overhead T0'");
  const double term =
      marked_speed * beta * work - marked_speed_next * beta * work + marked_speed * overhead;
  if (!(term > 0)) {
    throw Error("Theorem 2 has no solution: C beta W - C' beta W + C T0 = " + shortest_text(term) +
                " is not positive, so no W' keeps the speed-efficiency on C'");
  }
  return term;
}

}  // namespace

double theorem2_required_work(double marked_speed, double marked_speed_next, double beta,
                              double work, double overhead, double overhead_next) {
  const double term =
      theorem2_term(marked_speed, marked_speed_next, beta, work, overhead, overhead_next);
  return marked_speed_next * overhead_next * work / term;
}

double theorem2_psi(double marked_speed, double marked_speed_next, double beta, double work,
                    double overhead, double overhead_next) {
  const double term =
      theorem2_term(marked_speed, marked_speed_next, beta, work, overhead, overhead_next);
  return term / (marked_speed * overhead_next);
}

}  // namespace hetscale::isospeed
