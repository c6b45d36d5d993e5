// The fuzz targets (docs/fuzzing.md): one entry function per parser of untrusted input.
// Each is built twice: into a libFuzzer binary (fuzz/CMakeLists.txt, clang) and into the
// normal build's fuzz_tests, which replays fuzz/corpus and fuzz/regressions through it.
//
// A target returns 0 for every input the parser accepts or rejects as documented. A
// broken property (a round trip that differs, an undocumented exception) escapes as an
// exception: libFuzzer reports it as a crash, the replay test names the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

int hetscale_fuzz_experiment_spec(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_hostlist(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_jobcomp(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_node_record(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_partition(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_run_record(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_scontrol_partition(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_scontrol_nodes(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_sacct(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_site_table(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_round_plan(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_workload(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_task_times(const std::uint8_t* data, std::size_t size);
int hetscale_fuzz_topology(const std::uint8_t* data, std::size_t size);

namespace hetscale::fuzz {

/// A property of the parser that does not hold for this input.
class PropertyBroken : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

inline void require(bool condition, const std::string& property) {
  if (!condition) throw PropertyBroken(property);
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace hetscale::fuzz
