// Slurm jobcomp/filetxt output (slurm/src/jobcomp.cpp), read by `hetscale collect
// --jobcomp`. Any text gives completions or raises ConfigError; every line's fields have
// names of letters and digits, and every completion has a positive job id and its line.
#include <cctype>
#include <sstream>

#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/slurm/jobcomp.hpp"

namespace {

using hetscale::fuzz::require;

void check_fields(std::string_view line) {
  for (const auto& [name, value] : hetscale::slurm::jobcomp_fields(line)) {
    require(!name.empty() && std::isalpha(static_cast<unsigned char>(name.front())) != 0,
            "field name does not start with a letter");
    for (char c : name) {
      require(std::isalnum(static_cast<unsigned char>(c)) != 0, "field name not alphanumeric");
    }
    require(value.size() <= line.size(), "field value longer than its line");
  }
}

}  // namespace

int hetscale_fuzz_jobcomp(const std::uint8_t* data, std::size_t size) {
  const std::string text(hetscale::fuzz::text_of(data, size));
  std::size_t start = 0;
  std::uint32_t lines = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    check_fields(std::string_view(text).substr(start, end - start));
    ++lines;
    start = end + 1;
  }
  std::istringstream in(text);
  std::vector<hetscale::slurm::JobRecord> jobs;
  try {
    jobs = hetscale::slurm::read_jobcomp(in, "fuzz.log");
  } catch (const hetscale::ConfigError&) {
    return 0;
  }
  for (const auto& job : jobs) {
    require(job.job_id > 0, "job id not positive");
    require(job.line >= 1 && job.line <= lines, "line number out of range");
    require(!job.start_time.empty(), "completion without start time");
  }
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_jobcomp(data, size);
}
#endif
