#include "hetscale/study/round_files.hpp"

#include "hetscale/base/utc_time.hpp"

namespace hetscale::study {

std::vector<jobgen::GeneratedFile> round_files(const jobgen::Round& round, const std::string& kernel_dir,
                                               const std::vector<jobgen::GeneratedFile>& inputs) {
  auto files = jobgen::round_files(round, {kernel_dir}, utc_time_now());
  files.insert(files.end(), inputs.begin(), inputs.end());
  return files;
}

}  // namespace hetscale::study
