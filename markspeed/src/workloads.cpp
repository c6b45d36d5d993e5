#include "workloads.hpp"

#include <algorithm>
#include <chrono>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hetscale/base/error.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"
#include "serial/fft.hpp"
#include "serial/lu.hpp"
#include "serial/random_fill.hpp"
#include "serial/work_formula.hpp"

namespace hetscale::markspeed {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class Dgemm final : public Workload {
 public:
  Dgemm(std::size_t n, unsigned seed) : n_(n), a_(n * n), b_(n * n), c_(n * n) {
    kernels::fill_uniform(a_, seed, 1);
    kernels::fill_uniform(b_, seed, 2);
  }
  Repetition run_once() override {
    const auto start = Clock::now();
    kernels::multiply(n_, n_, a_.data(), b_.data(), c_.data());
    const double seconds = seconds_since(start);
    const double flops = 2.0 * static_cast<double>(n_) * static_cast<double>(n_) * static_cast<double>(n_);
    return {flops / 1e6, seconds};
  }
  Repetition run_slice() override {
    const std::size_t rows = std::max<std::size_t>(1, n_ / slices_per_repetition);
    const std::size_t first = next_row_ + rows <= n_ ? next_row_ : 0;
    const auto start = Clock::now();
    kernels::multiply(rows, n_, a_.data() + first * n_, b_.data(), c_.data() + first * n_);
    const double seconds = seconds_since(start);
    next_row_ = first + rows;
    const double flops = 2.0 * static_cast<double>(rows) * static_cast<double>(n_) * static_cast<double>(n_);
    return {flops / 1e6, seconds};
  }

 private:
  std::size_t n_;
  std::vector<double> a_, b_, c_;
  std::size_t next_row_ = 0;
};

// STREAM triad a = b + s c, counted as 24 bytes per element (two reads, one write).
class StreamTriad final : public Workload {
 public:
  StreamTriad(std::size_t n, unsigned seed) : a_(n, 0.0), b_(n), c_(n) {
    kernels::fill_uniform(b_, seed, 1);
    kernels::fill_uniform(c_, seed, 2);
  }
  Repetition run_once() override {
    constexpr int passes = 10;  // ~0.1 s at a few GB/s with the default size
    const std::size_t n = a_.size();
    double* __restrict a = a_.data();
    const double* __restrict b = b_.data();
    const double* __restrict c = c_.data();
    const auto start = Clock::now();
    for (int pass = 0; pass < passes; ++pass) {
      const double s = 1.0 + pass * 1e-3;
#pragma omp simd
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    }
    const double elapsed = seconds_since(start);
    sink_ += a_[n / 2];  // keeps the stores observable
    return {24.0 * static_cast<double>(n) * passes / 1e6, elapsed};
  }
  Repetition run_slice() override {
    const std::size_t n = a_.size();
    const std::size_t count = std::max<std::size_t>(1, n / slices_per_repetition);
    const std::size_t first = next_ + count <= n ? next_ : 0;
    double* __restrict a = a_.data() + first;
    const double* __restrict b = b_.data() + first;
    const double* __restrict c = c_.data() + first;
    const auto start = Clock::now();
#pragma omp simd
    for (std::size_t i = 0; i < count; ++i) a[i] = b[i] + 1.5 * c[i];
    const double elapsed = seconds_since(start);
    sink_ += a[count / 2];
    next_ = first + count;
    return {24.0 * static_cast<double>(count) / 1e6, elapsed};
  }

 private:
  std::vector<double> a_, b_, c_;
  double sink_ = 0;
  std::size_t next_ = 0;
};

// A linear system solved on one process: `ge` by elimination, `lu` by blocked LU. Every
// repetition solves a fresh copy of the same random system; the residual checks the answer.
class SerialSolve final : public Workload {
 public:
  using Solver = std::vector<double> (*)(std::size_t, std::span<double>);
  SerialSolve(std::string kernel, Solver solve, std::size_t n, unsigned seed, unsigned stream)
      : kernel_(std::move(kernel)), solve_(solve), n_(n), original_(n * (n + 1)),
        work_(original_.size()) {
    kernels::fill_uniform(original_, seed, stream);
  }
  Repetition run_once() override {
    work_ = original_;  // untimed: a fresh system every repetition
    const auto start = Clock::now();
    const std::vector<double> x = solve_(n_, work_);
    const double elapsed = seconds_since(start);
    if (kernels::scaled_residual(n_, original_, x) >= kernels::residual_bound) {
      throw Error("kernel:" + kernel_ + ": wrong answer");
    }
    return {kernels::builtin_work(kernel_, static_cast<double>(n_)) / 1e6, elapsed};
  }

 private:
  std::string kernel_;
  Solver solve_;
  std::size_t n_;
  std::vector<double> original_, work_;
};

class SerialConv2d final : public Workload {
 public:
  SerialConv2d(std::size_t n, unsigned seed) : n_(n), x_(n * n), y_(n * n) {
    kernels::fill_uniform(x_, seed, 4);
    kernels::fill_uniform(y_, seed, 5);
  }
  Repetition run_once() override {
    std::vector<kernels::Complex> x = x_, y = y_;  // untimed copies: the transform is in place
    const auto start = Clock::now();
    const std::vector<kernels::Complex> z = kernels::convolve_fft(n_, std::move(x), std::move(y));
    const double elapsed = seconds_since(start);
    sink_ += z[0].real();
    return {kernels::builtin_work("conv2d", static_cast<double>(n_)) / 1e6, elapsed};
  }

 private:
  std::size_t n_;
  std::vector<kernels::Complex> x_, y_;
  double sink_ = 0;
};

}  // namespace

std::size_t effective_size(const BenchmarkSpec& spec, std::size_t size) {
  switch (spec.kind) {
    case BenchmarkKind::dgemm:
      return size != 0 ? size : default_dgemm_order;
    case BenchmarkKind::stream:
      return size != 0 ? size : default_stream_elements;
    case BenchmarkKind::kernel:
      return spec.n;
  }
  return size;
}

std::unique_ptr<Workload> make_workload(const BenchmarkSpec& spec, std::size_t size, unsigned seed) {
  switch (spec.kind) {
    case BenchmarkKind::dgemm:
      return std::make_unique<Dgemm>(size, seed);
    case BenchmarkKind::stream:
      return std::make_unique<StreamTriad>(size, seed);
    case BenchmarkKind::kernel:
      if (spec.kernel == "mm") return std::make_unique<Dgemm>(size, seed);
      if (spec.kernel == "ge") {
        return std::make_unique<SerialSolve>("ge", kernels::solve_serial, size, seed, 3);
      }
      if (spec.kernel == "conv2d") return std::make_unique<SerialConv2d>(size, seed);
      if (spec.kernel == "lu") {
        const auto solve_blocked = [](std::size_t n, std::span<double> augmented) {
          return kernels::solve_blocked(n, augmented);
        };
        return std::make_unique<SerialSolve>("lu", solve_blocked, size, seed, 7);
      }
      break;
  }
  throw Error("benchmark '" + spec.name() + "' has no workload");
}

}  // namespace hetscale::markspeed
