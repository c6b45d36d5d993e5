// Slurm jobcomp/filetxt output (slurm/src/jobcomp.cpp), read by `hetscale collect
// --jobcomp`. Any text gives completions (and lines set aside) or raises ConfigError; every
// reading of a line has the format's fields in order, and every completion has a positive
// job id and its line.
#include <cctype>
#include <sstream>

#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/slurm/jobcomp.hpp"

namespace {

using hetscale::fuzz::require;

// Every reading of a line has jobcomp/filetxt's fields in their order, each value a piece
// of the line; never more readings than asked for.
void check_readings(std::string_view line) {
  const auto readings = hetscale::slurm::jobcomp_readings(line);
  require(readings.size() <= 2, "more readings than the limit");
  for (const auto& fields : readings) {
    require(fields.size() >= 23 && fields.front().first == "JobId" && fields.back().first == "ExitCode",
            "a reading without JobId first and ExitCode last");
    std::size_t length = 0;
    for (const auto& [name, value] : fields) {
      require(!name.empty() && std::isupper(static_cast<unsigned char>(name.front())) != 0,
              "field name does not start with a capital");
      length += name.size() + 1 + value.size();
    }
    require(length + fields.size() - 1 <= line.size(), "fields longer than their line");
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
    check_readings(std::string_view(text).substr(start, end - start));
    ++lines;
    start = end + 1;
  }
  std::istringstream in(text);
  std::vector<hetscale::slurm::JobRecord> jobs;
  try {
    jobs = hetscale::slurm::read_jobcomp(in, "fuzz.log").jobs;
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
