#include "hetscale/model/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "hetscale/base/error.hpp"
#include "hetscale/model/isospeed.hpp"

namespace hetscale {
namespace {

double log2p(double p) {
  return p > 1 ? std::ceil(std::log2(p)) : 0;
}
double spread(double p) {
  return p > 1 ? (p - 1) / p : 0;
}

// Every term vanishes on one process: a single rank does not communicate.
const std::vector<CommunicationTerm>& terms_for(CommunicationPattern pattern) {
  static const CommunicationTerm step{"[p>1]", [](double, double p) { return p > 1 ? 1.0 : 0.0; }, false};
  static const CommunicationTerm tree{"log2p", [](double, double p) { return log2p(p); }, false};
  static const CommunicationTerm tree_n{"N*log2p", [](double n, double p) { return n * log2p(p); }, true};
  static const CommunicationTerm tree_n2{"N^2*log2p",
                                         [](double n, double p) { return n * n * log2p(p); }, true};
  static const CommunicationTerm spread_n2{"N^2*(p-1)/p",
                                           [](double n, double p) { return n * n * spread(p); }, true};
  static const CommunicationTerm ranks{"(p-1)", [](double, double p) { return p - 1; }, false};
  static const CommunicationTerm ranks_n{"N*(p-1)", [](double n, double p) { return n * (p - 1); }, true};
  // mm: scatter of A and gather of C (N^2 (p-1)/p words through rank 0), tree broadcast of B.
  static const std::vector<CommunicationTerm> mm{step, tree, spread_n2, tree_n2};
  // ge: per pivot a max-loc allreduce and a broadcast of one row (N log2 p latency, N^2
  // log2 p volume), a barrier-like wait growing with p, the final gather.
  static const std::vector<CommunicationTerm> ge{step, tree_n, ranks_n, tree_n2, spread_n2};
  // conv2d: two all-to-all transposes: p - 1 messages each, N^2 (p-1)/p words.
  static const std::vector<CommunicationTerm> conv2d{step, ranks, spread_n2};
  // lu: per panel of NB columns (N / NB of them, NB = N / (8 p)) a broadcast of the panel
  // from its owner (N log2 p latency, N^2 log2 p volume in all); the initial scatter and
  // the final gather.
  static const std::vector<CommunicationTerm> lu{step, tree_n, tree_n2, spread_n2};
  static const std::vector<CommunicationTerm> generic{step, tree, tree_n, tree_n2};
  switch (pattern) {
    case CommunicationPattern::mm:
      return mm;
    case CommunicationPattern::ge:
      return ge;
    case CommunicationPattern::conv2d:
      return conv2d;
    case CommunicationPattern::lu:
      return lu;
    case CommunicationPattern::generic:
      break;
  }
  return generic;
}

/// Solves the square system m x = v (Gaussian elimination, partial pivoting); false when
/// singular.
bool solve_square(std::vector<double> m, std::vector<double> v, std::size_t n,
                  std::vector<double>& x) {
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::abs(m[r * n + col]) > std::abs(m[pivot * n + col])) pivot = r;
    if (std::abs(m[pivot * n + col]) < 1e-300) return false;
    if (pivot != col) {
      for (std::size_t c = 0; c < n; ++c) std::swap(m[col * n + c], m[pivot * n + c]);
      std::swap(v[col], v[pivot]);
    }
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = m[r * n + col] / m[col * n + col];
      for (std::size_t c = col; c < n; ++c) m[r * n + c] -= f * m[col * n + c];
      v[r] -= f * v[col];
    }
  }
  x.assign(n, 0);
  for (std::size_t r = n; r-- > 0;) {
    double s = v[r];
    for (std::size_t c = r + 1; c < n; ++c) s -= m[r * n + c] * x[c];
    x[r] = s / m[r * n + r];
  }
  return true;
}

/// Unconstrained least squares over the columns in `set` (normal equations, with a tiny
/// ridge so that collinear columns do not make the system singular).
std::vector<double> least_squares(const std::vector<double>& a, std::size_t rows,
                                  std::size_t columns, const std::vector<double>& b,
                                  const std::vector<std::size_t>& set) {
  const std::size_t k = set.size();
  std::vector<double> m(k * k, 0);
  std::vector<double> v(k, 0);
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t r = 0; r < rows; ++r)
        m[i * k + j] += a[r * columns + set[i]] * a[r * columns + set[j]];
    for (std::size_t r = 0; r < rows; ++r) v[i] += a[r * columns + set[i]] * b[r];
    m[i * k + i] *= 1 + 1e-12;
  }
  std::vector<double> x;
  if (!solve_square(m, v, k, x)) x.assign(k, 0);
  return x;
}

double polynomial(const std::vector<double>& c, double x) {
  double y = 0;
  for (std::size_t i = c.size(); i-- > 0;) y = y * x + c[i];
  return y;
}

}  // namespace

std::vector<double> non_negative_least_squares(const std::vector<double>& a_in, std::size_t rows,
                                               std::size_t columns, const std::vector<double>& b) {
  // Scale columns to unit norm (terms differ by many orders of magnitude); x = x_scaled / norm.
  std::vector<double> a = a_in;
  std::vector<double> norm(columns, 0);
  for (std::size_t c = 0; c < columns; ++c) {
    for (std::size_t r = 0; r < rows; ++r) norm[c] += a[r * columns + c] * a[r * columns + c];
    norm[c] = std::sqrt(norm[c]);
    for (std::size_t r = 0; r < rows; ++r)
      a[r * columns + c] = norm[c] > 0 ? a[r * columns + c] / norm[c] : 0;
  }
  std::vector<double> x(columns, 0);
  std::vector<bool> passive(columns, false);
  auto gradient = [&] {
    std::vector<double> w(columns, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      double residual = b[r];
      for (std::size_t c = 0; c < columns; ++c) residual -= a[r * columns + c] * x[c];
      for (std::size_t c = 0; c < columns; ++c) w[c] += a[r * columns + c] * residual;
    }
    return w;
  };
  const double tolerance =
      1e-12 * (1 + std::sqrt(std::inner_product(b.begin(), b.end(), b.begin(), 0.0)));
  for (std::size_t outer = 0; outer < 3 * columns + 3; ++outer) {
    const auto w = gradient();
    std::size_t best = columns;
    for (std::size_t c = 0; c < columns; ++c)
      if (!passive[c] && norm[c] > 0 && w[c] > tolerance && (best == columns || w[c] > w[best]))
        best = c;
    if (best == columns) break;
    passive[best] = true;
    for (std::size_t inner = 0; inner < 3 * columns + 3; ++inner) {
      std::vector<std::size_t> set;
      for (std::size_t c = 0; c < columns; ++c)
        if (passive[c]) set.push_back(c);
      const auto s = least_squares(a, rows, columns, b, set);
      if (std::all_of(s.begin(), s.end(), [](double v) { return v > 0; })) {
        std::fill(x.begin(), x.end(), 0.0);
        for (std::size_t i = 0; i < set.size(); ++i) x[set[i]] = s[i];
        break;
      }
      // Step towards s until the first passive coefficient hits zero, and drop it.
      double alpha = 1;
      for (std::size_t i = 0; i < set.size(); ++i)
        if (s[i] <= 0) alpha = std::min(alpha, x[set[i]] / (x[set[i]] - s[i]));
      for (std::size_t i = 0; i < set.size(); ++i) {
        x[set[i]] += alpha * (s[i] - x[set[i]]);
        if (x[set[i]] <= 1e-15) {
          x[set[i]] = 0;
          passive[set[i]] = false;
        }
      }
    }
  }
  for (std::size_t c = 0; c < columns; ++c) x[c] = norm[c] > 0 ? x[c] / norm[c] : 0;
  return x;
}

CommunicationPattern communication_pattern_for(const std::string& code) {
  if (code == "mm") return CommunicationPattern::mm;
  if (code == "ge") return CommunicationPattern::ge;
  if (code == "conv2d") return CommunicationPattern::conv2d;
  if (code == "lu") return CommunicationPattern::lu;
  return CommunicationPattern::generic;
}

CommunicationModel CommunicationModel::fit(const std::vector<TimingSample>& samples,
                                           CommunicationPattern pattern) {
  CommunicationModel model;
  model.terms_ = terms_for(pattern);
  const std::size_t columns = model.terms_.size();
  std::vector<double> a;
  std::vector<double> b;
  for (const auto& s : samples) {
    for (const auto& term : model.terms_)
      a.push_back(term.basis(s.parameter, static_cast<double>(s.processes)));
    b.push_back(std::max(0.0, s.communication_seconds));
  }
  model.coefficients_ = non_negative_least_squares(a, samples.size(), columns, b);
  return model;
}

double CommunicationModel::seconds(double parameter, std::size_t processes) const {
  double t = 0;
  for (std::size_t i = 0; i < terms_.size(); ++i)
    t += coefficients_[i] * terms_[i].basis(parameter, static_cast<double>(processes));
  return t;
}

TimeModel TimeModel::fit(const std::vector<TimingSample>& samples, const Workload& workload,
                         CommunicationPattern pattern) {
  if (samples.size() < 2) throw Error("the time model needs at least 2 measured runs");
  const bool no_compute_times =
      std::all_of(samples.begin(), samples.end(), [](const TimingSample& s) { return s.compute_seconds == 0; });
  if (no_compute_times) return fit_wall_times(samples, workload, pattern);
  TimeModel model(workload);
  model.min_parameter_ = samples.front().parameter;
  model.max_parameter_ = samples.front().parameter;
  std::vector<double> logs;
  std::vector<double> etas;
  for (const auto& s : samples) {
    if (!(s.parameter > 0) || !(s.marked_speed > 0) || !(s.compute_seconds > 0) ||
        !(s.wall_seconds > 0))
      throw Error(
          "a timing sample needs positive parameter, marked speed, compute and wall seconds");
    model.min_parameter_ = std::min(model.min_parameter_, s.parameter);
    model.max_parameter_ = std::max(model.max_parameter_, s.parameter);
    logs.push_back(std::log(s.parameter));
    // eta: E_s over the compute time alone.
    etas.push_back(isospeed::speed_efficiency(workload.evaluate(std::vector<double>{s.parameter}),
                                              s.compute_seconds, s.marked_speed));
  }
  // eta(N): polynomial in ln N, degree up to 2 (FAST: caches make a constant rate wrong).
  std::vector<double> distinct = logs;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const std::size_t degree = std::min<std::size_t>(2, distinct.size() - 1);
  std::vector<double> vandermonde;
  for (double x : logs)
    for (std::size_t k = 0; k <= degree; ++k)
      vandermonde.push_back(std::pow(x, static_cast<double>(k)));
  std::vector<std::size_t> all(degree + 1);
  std::iota(all.begin(), all.end(), 0);
  model.eta_coefficients_ = least_squares(vandermonde, logs.size(), degree + 1, etas, all);
  model.communication_ = CommunicationModel::fit(samples, pattern);
  double error = 0;
  for (const auto& s : samples)
    error += std::abs(model.seconds(s.parameter, s.marked_speed, s.processes) - s.wall_seconds) /
             s.wall_seconds;
  model.mean_fit_error_ = error / static_cast<double>(samples.size());
  return model;
}

// T = W/(C eta) + sum c_i term_i(N, p), non-negative least squares on the wall times: the
// first column W/C has the coefficient 1/eta. When T0's terms that grow with N take all of
// the growth (few runs, W and a term alike over the sizes), they are left out and T0 keeps
// the terms of p alone.
TimeModel TimeModel::fit_wall_times(const std::vector<TimingSample>& samples, const Workload& workload,
                                    CommunicationPattern pattern) {
  TimeModel model(workload);
  model.wall_times_only_ = true;
  model.min_parameter_ = samples.front().parameter;
  model.max_parameter_ = samples.front().parameter;
  for (const auto& s : samples) {
    if (!(s.parameter > 0) || !(s.marked_speed > 0) || !(s.wall_seconds > 0))
      throw Error("a timing sample needs positive parameter, marked speed and wall seconds");
    model.min_parameter_ = std::min(model.min_parameter_, s.parameter);
    model.max_parameter_ = std::max(model.max_parameter_, s.parameter);
  }
  auto solve = [&](const std::vector<CommunicationTerm>& terms) {
    std::vector<double> a;
    std::vector<double> b;
    for (const auto& s : samples) {
      a.push_back(workload.evaluate(std::vector<double>{s.parameter}) / s.marked_speed);
      for (const auto& term : terms) a.push_back(term.basis(s.parameter, static_cast<double>(s.processes)));
      b.push_back(s.wall_seconds);
    }
    return non_negative_least_squares(a, samples.size(), 1 + terms.size(), b);
  };
  model.communication_.terms_ = terms_for(pattern);
  std::vector<double> x = solve(model.communication_.terms_);
  if (!(x[0] > 0)) {
    std::erase_if(model.communication_.terms_, [](const CommunicationTerm& t) { return t.grows_with_parameter; });
    x = solve(model.communication_.terms_);
  }
  if (!(x[0] > 0))
    throw Error("the runs' wall times have no part that grows with W/C: the compute time cannot be told apart");
  model.eta_coefficients_ = {1.0 / x[0]};
  model.communication_.coefficients_.assign(x.begin() + 1, x.end());
  double error = 0;
  for (const auto& s : samples)
    error += std::abs(model.seconds(s.parameter, s.marked_speed, s.processes) - s.wall_seconds) / s.wall_seconds;
  model.mean_fit_error_ = error / static_cast<double>(samples.size());
  return model;
}

std::string TimeModel::describe() const {
  static const char* degrees[] = {"constant", "linear", "quadratic"};
  std::string t0;
  for (std::size_t i = 0; i < communication_.terms().size(); ++i) {
    if (communication_.coefficients()[i] <= 0) continue;
    t0 += fmt::format("{}{:.4g}*{}", t0.empty() ? "" : " + ", communication_.coefficients()[i],
                      communication_.terms()[i].name);
  }
  std::string probed;
  for (const ProbedCommunication& p : probed_) probed += fmt::format("{}{}", probed.empty() ? "" : ", ", p.processes);
  return fmt::format("T = W/(C eta) + T0; eta(N) {} in ln N on N in [{:g}, {:g}]; T0 = {}{}{}",
                     degrees[std::min<std::size_t>(2, eta_coefficients_.size() - 1)],
                     min_parameter_, max_parameter_, t0.empty() ? "0" : t0,
                     wall_times_only_ ? "; fitted on wall times alone (the runs have no compute times)" : "",
                     probed.empty() ? "" : "; T0 from network probes at p = " + probed);
}

std::size_t TimeModel::fitted_coefficients() const {
  const auto& c = communication_.coefficients();
  return eta_coefficients_.size() + static_cast<std::size_t>(std::count_if(
                                        c.begin(), c.end(), [](double x) { return x != 0; }));
}

double TimeModel::compute_efficiency(double parameter) const {
  const double n = std::clamp(parameter, min_parameter_, max_parameter_);
  return std::max(1e-6, polynomial(eta_coefficients_, std::log(n)));
}

void TimeModel::use_probed_communication(ProbedCommunication probed) {
  if (!probed.seconds) throw Error("a probed communication needs its function of N");
  const auto at = std::lower_bound(probed_.begin(), probed_.end(), probed.processes,
                                   [](const ProbedCommunication& p, std::size_t n) { return p.processes < n; });
  if (at != probed_.end() && at->processes == probed.processes) {
    *at = std::move(probed);
  } else {
    probed_.insert(at, std::move(probed));
  }
}

void TimeModel::use_probed_communication_of(const TimeModel& other) {
  for (const ProbedCommunication& p : other.probed_) use_probed_communication(p);
}

std::vector<std::size_t> TimeModel::probed_processes() const {
  std::vector<std::size_t> out;
  for (const ProbedCommunication& p : probed_) out.push_back(p.processes);
  return out;
}

double TimeModel::communication_seconds(double parameter, std::size_t processes) const {
  for (const ProbedCommunication& p : probed_)
    if (p.processes == processes) return p.seconds(parameter);
  return communication_.seconds(parameter, processes);
}

double TimeModel::seconds(double parameter, double marked_speed, std::size_t processes) const {
  const double work = workload_.evaluate(std::vector<double>{parameter});
  return work / (marked_speed * compute_efficiency(parameter)) + communication_seconds(parameter, processes);
}

double TimeModel::speed_efficiency(double parameter, double marked_speed,
                                   std::size_t processes) const {
  const double work = workload_.evaluate(std::vector<double>{parameter});
  return isospeed::speed_efficiency(work, seconds(parameter, marked_speed, processes), marked_speed);
}

ParameterPrediction predict_parameter(const TimeModel& model, const Workload& workload,
                                      double marked_speed, std::size_t processes, double target,
                                      double low, double high) {
  ParameterPrediction out;
  // The search starts where the workload gives a positive W: conv2d's W = 66 N^2 lg N + ...
  // is negative below N = 1, and no run has such a size.
  while (low < high && !(workload.evaluate(std::vector<double>{low}) > 0)) low *= 2;
  auto gap = [&](double n) { return model.speed_efficiency(n, marked_speed, processes) - target; };
  if (gap(low) > 0) {
    out.note = "the target is already exceeded at the smallest size searched";
    out.beyond = ParameterPrediction::Beyond::below;
    return out;
  }
  if (gap(high) < 0) {
    out.note = "the target is not reached below N = " + std::to_string(high) +
               " (predicted E_s there " +
               std::to_string(model.speed_efficiency(high, marked_speed, processes)) + ")";
    out.beyond = ParameterPrediction::Beyond::above;
    return out;
  }
  double a = std::log(low);
  double b = std::log(high);
  for (int i = 0; i < 200 && b - a > 1e-12; ++i) {
    const double mid = 0.5 * (a + b);
    (gap(std::exp(mid)) < 0 ? a : b) = mid;
  }
  out.found = true;
  out.parameter = std::exp(0.5 * (a + b));
  out.work = workload.evaluate(std::vector<double>{out.parameter});
  out.seconds = model.seconds(out.parameter, marked_speed, processes);
  if (out.parameter < model.min_parameter() || out.parameter > model.max_parameter())
    out.note = "compute efficiency held at its value at the edge of the measured sizes";
  return out;
}

}  // namespace hetscale
