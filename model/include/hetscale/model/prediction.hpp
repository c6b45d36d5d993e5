// Scalability prediction (docs/science.md section 1 "Prediction", section 4 FAST): a model of
// run time T(N, C, p) = W(N) / (C eta(N)) + T0(N, p) fitted to measured runs, then solved
// for the parameter N' that reaches a target speed-efficiency on a set never run.
//  - T0(N, p): communication and synchronisation, a non-negative combination of terms
//    chosen from the code's communication pattern (latency terms in p or ceil(log2 p) for a
//    tree broadcast, volume terms in N), fitted by non-negative least squares to the
//    measured communication seconds;
//  - eta(N): compute efficiency (achieved compute speed / marked speed), fitted as a
//    polynomial in ln N to the measured compute seconds and held at its end values outside
//    the measured range (said in the prediction).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "hetscale/model/workload.hpp"

namespace hetscale {

/// One measured run, reduced to what the model needs (speeds in operations per second).
struct TimingSample {
  double parameter = 0;              // N
  std::size_t processes = 1;         // p
  double marked_speed = 0;           // C of the set, operations per second
  double wall_seconds = 0;           // T
  double compute_seconds = 0;        // slowest rank's compute time
  double communication_seconds = 0;  // T - compute (waiting included), >= 0
};

enum class CommunicationPattern { generic, mm, ge, conv2d, lu };

CommunicationPattern communication_pattern_for(const std::string& code);

/// One term of T0, e.g. "N^2*log2p" with its basis function.
struct CommunicationTerm {
  std::string name;
  double (*basis)(double parameter, double processes);
  bool grows_with_parameter;  // the basis depends on N, not on p alone
};

class CommunicationModel {
 public:
  static CommunicationModel fit(const std::vector<TimingSample>& samples,
                                CommunicationPattern pattern);
  [[nodiscard]] double seconds(double parameter, std::size_t processes) const;
  [[nodiscard]] const std::vector<CommunicationTerm>& terms() const { return terms_; }
  [[nodiscard]] const std::vector<double>& coefficients() const { return coefficients_; }

 private:
  friend class TimeModel;
  std::vector<CommunicationTerm> terms_;
  std::vector<double> coefficients_;
};

/// T0 on one process count from a network probe measured on that many processes: the
/// kernel's messages at the probe's figures (kernel_communication.hpp's
/// probed_communication), a function of N in seconds.
struct ProbedCommunication {
  std::size_t processes = 0;
  std::function<double(double parameter)> seconds;
};

class TimeModel {
 public:
  /// Fits eta(N) to the samples' compute times and T0 to the rest. When no sample has a
  /// compute time (all 0: runs timed from outside, or by a program that reports one time
  /// only), fits T = W/(C eta) + T0(N, p) to the wall times alone, eta constant: the sets'
  /// different C and p separate the two parts.
  static TimeModel fit(const std::vector<TimingSample>& samples, const Workload& workload,
                       CommunicationPattern pattern);

  /// Takes T0 on `probed.processes` processes from a network probe instead of the fitted
  /// terms (a later one for the same count replaces an earlier one): communication the
  /// fitted sets cannot show (contention on a larger set) enters from measurement.
  void use_probed_communication(ProbedCommunication probed);
  /// The probed communication of `other`, e.g. of the model whose runs a bootstrap resamples.
  void use_probed_communication_of(const TimeModel& other);
  /// The process counts T0 is probed at, ascending.
  [[nodiscard]] std::vector<std::size_t> probed_processes() const;
  /// T0(N, p): probed at p when a probe was given for p, else the fitted terms.
  [[nodiscard]] double communication_seconds(double parameter, std::size_t processes) const;

  [[nodiscard]] double compute_efficiency(double parameter) const;  // eta(N)
  [[nodiscard]] double seconds(double parameter, double marked_speed, std::size_t processes) const;
  [[nodiscard]] double speed_efficiency(double parameter, double marked_speed,
                                        std::size_t processes) const;
  [[nodiscard]] const CommunicationModel& communication() const { return communication_; }
  [[nodiscard]] double min_parameter() const { return min_parameter_; }
  [[nodiscard]] double max_parameter() const { return max_parameter_; }
  /// Relative error |predicted - measured| / measured of T on the fitting samples.
  [[nodiscard]] double mean_fit_error() const { return mean_fit_error_; }
  /// The fitted coefficients that are not held at zero: eta's and T0's.
  [[nodiscard]] std::size_t fitted_coefficients() const;
  /// One line naming the fitted model, e.g. "T = W/(C eta) + T0; eta(N) quadratic in ln N
  /// on N in [100, 800]; T0 = 0.001*[p>1] + 2e-09*N^2*log2p" (terms with a zero
  /// coefficient left out).
  [[nodiscard]] std::string describe() const;

 private:
  explicit TimeModel(Workload workload) : workload_(std::move(workload)) {}
  static TimeModel fit_wall_times(const std::vector<TimingSample>& samples, const Workload& workload,
                                  CommunicationPattern pattern);
  Workload workload_;
  CommunicationModel communication_;
  std::vector<double> eta_coefficients_;  // polynomial in ln N
  double min_parameter_ = 0;
  double max_parameter_ = 0;
  double mean_fit_error_ = 0;
  bool wall_times_only_ = false;  // fitted on wall times alone (no compute times)
  std::vector<ProbedCommunication> probed_;  // by processes
};

struct ParameterPrediction {
  bool found = false;
  double parameter = 0;  // N' reaching the target
  double work = 0;       // W(N')
  double seconds = 0;    // predicted T at N'
  std::string note;      // e.g. the model was extrapolated in N, or the target is unreachable
  /// Without a root: where it lies beyond the range searched (below: the target is
  /// exceeded at the smallest size searched; above: not reached at the largest).
  enum class Beyond { none, below, above };
  Beyond beyond = Beyond::none;
};

/// Solves E_s(N', C, p) = target for N' in [low, high] (bisection in ln N).
ParameterPrediction predict_parameter(const TimeModel& model, const Workload& workload,
                                      double marked_speed, std::size_t processes, double target,
                                      double low, double high);

/// Non-negative least squares min ||A x - b|| subject to x >= 0 (Lawson-Hanson), for the
/// small dense systems of the models above. `a` is row-major, rows x columns.
std::vector<double> non_negative_least_squares(const std::vector<double>& a, std::size_t rows,
                                               std::size_t columns, const std::vector<double>& b);

}  // namespace hetscale
