// The isospeed-efficiency model (docs/science.md section 1), in its own names.
// Every function validates its inputs: speeds, times and work must be positive and
// finite; t0, T0 and beta finite and >= 0 (Error names the symbol otherwise). All
// speeds must be in the same unit as W / T (see units.hpp).
#pragma once

#include <span>

namespace hetscale::isospeed {

/// C = sum_i C_i.
double system_marked_speed(std::span<const double> node_speeds);
/// S = W / T.
double achieved_speed(double work, double seconds);
/// E_s = W / (T C).
double speed_efficiency(double work, double seconds, double marked_speed);
/// T = W / (C E_s): the time at which work W on marked speed C has speed-efficiency E_s.
double seconds_at_efficiency(double work, double marked_speed, double efficiency);
/// psi(C, C') = (C' W) / (C W'): from system C with work W to system C' with work W'
/// at the same speed-efficiency.
double psi(double marked_speed, double work, double marked_speed_next, double work_next);

/// Theorem 1: psi = (t0 + T0) / (t0' + T0').
double psi_theorem1(double t0, double overhead, double t0_next, double overhead_next);
/// Corollary 2 (alpha = 0): psi = T0 / T0'.
double psi_corollary2(double overhead, double overhead_next);
/// Theorem 2 (sequential part always on one node, beta = alpha / C_i):
/// W' = C' T0' W / (C beta W - C' beta W + C T0). Throws Error when the denominator is
/// not positive (no W' reaches the same E_s on C').
double theorem2_required_work(double marked_speed, double marked_speed_next, double beta,
                              double work, double overhead, double overhead_next);
/// Theorem 2: psi = (C beta W - C' beta W + C T0) / (C T0').
double theorem2_psi(double marked_speed, double marked_speed_next, double beta, double work,
                    double overhead, double overhead_next);

}  // namespace hetscale::isospeed
