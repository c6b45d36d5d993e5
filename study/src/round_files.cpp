#include "hetscale/study/round_files.hpp"

#include <algorithm>

#include "hetscale/base/utc_time.hpp"

namespace hetscale::study {

bool has_jobs(const jobgen::Study& round) {
  return std::any_of(round.sets.begin(), round.sets.end(), [](const auto& s) { return !s.parameter_values.empty(); });
}

std::vector<jobgen::GeneratedFile> round_files(const jobgen::Study& round, const std::string& kernel_dir,
                                               const std::vector<jobgen::GeneratedFile>& inputs) {
  auto files = jobgen::study_files(round, {kernel_dir}, utc_time_now());
  files.insert(files.end(), inputs.begin(), inputs.end());
  return files;
}

}  // namespace hetscale::study
