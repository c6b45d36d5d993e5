// The record of a step that has run (site/include/hetscale/site/record_after_step.hpp).
#include "hetscale/site/record_after_step.hpp"

#include <exception>

namespace hetscale {

RecordAfterStep append_record_after_step(const std::filesystem::path& file,
                                         const std::function<std::optional<RunRecord>()>& make) {
  RecordAfterStep out;
  try {
    const std::optional<RunRecord> record = make();
    if (!record) return out;
    append_run_record(file, *record);
    out.written = true;
  } catch (const std::exception& error) {  // filesystem errors are not hetscale::Error
    out.not_written_because = error.what();
  }
  return out;
}

}  // namespace hetscale
