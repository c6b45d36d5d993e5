// What the tests of refinement rounds share (tests/study/rounds_test.cpp and
// tests/cli/jobgen_test.cpp): run records whose E_s follows a known curve, and no Slurm to
// ask while a test runs.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hetscale::test {

/// Records of experiment "mm-scaling" on machine set `set` as the kernels would write them,
/// one line per size, with E_s from the constant-overhead model 1/E_s = 2 + k/W
/// (W = 2 N^3): the target 0.3 is reached at N = 1000.
inline void write_mm_records(const std::filesystem::path& file, int set, double marked_speed,
                             std::initializer_list<double> sizes) {
  constexpr double k = (1 / 0.3 - 2) * 2e9;
  std::ofstream out(file);
  for (double n : sizes) {
    const double work = 2 * n * n * n;
    const double efficiency = 1 / (2 + k / work);
    const double seconds = work / (efficiency * marked_speed * 1e6);  // C in Mflops
    out << nlohmann::json{{"schema", 1}, {"experiment", "mm-scaling"}, {"code", "mm"}, {"workload", "mm"},
                          {"parameters", {{"N", n}}}, {"work", work}, {"wall_seconds", seconds},
                          {"marked_speed", marked_speed}, {"machine_set", set}}.dump()
        << '\n';
  }
}

/// While it lives, SLURM_CONF names `missing` (a file that does not exist), so that no
/// Slurm a developer's shell points to (a running testbed) is asked: every check against
/// Slurm says it could not be made. The caller's SLURM_CONF comes back at the end.
class NoSlurm {
 public:
  explicit NoSlurm(const std::filesystem::path& missing) {
    if (const char* conf = std::getenv("SLURM_CONF")) saved_ = conf;
    ::setenv("SLURM_CONF", missing.c_str(), 1);
  }
  NoSlurm(const NoSlurm&) = delete;
  NoSlurm& operator=(const NoSlurm&) = delete;
  ~NoSlurm() { saved_ ? ::setenv("SLURM_CONF", saved_->c_str(), 1) : ::unsetenv("SLURM_CONF"); }

 private:
  std::optional<std::string> saved_;
};

}  // namespace hetscale::test
