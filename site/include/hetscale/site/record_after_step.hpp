// The record of a step that has run, appended after it: `hetscale record step`, `hetscale
// record hpcc` and the bundled kernels alike. A record that cannot be made or written
// costs the record, never the step's exit status.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "hetscale/site/run_record.hpp"

namespace hetscale {

/// What became of the record of a step that has run.
struct RecordAfterStep {
  bool written = false;                            // appended
  std::optional<std::string> not_written_because;  // one was due and could not be made or written: why
};

/// The step has run: `make` builds its record (nothing when none is due) and it is appended
/// to `file` (append_run_record). Whatever goes wrong from here (an output that does not
/// read, a full file system, a quota) costs the record, never the step's exit status, which
/// the caller passes on: it is `not_written_because`, never an exception.
[[nodiscard]] RecordAfterStep append_record_after_step(const std::filesystem::path& file,
                                                       const std::function<std::optional<RunRecord>()>& make);

}  // namespace hetscale
