// The task times files the SPANK plugin writes into a directory the job's user owns
// (site/src/task_times.cpp): `hetscale record step` reads whatever is there. An accepted
// file reads back the same from its lines as task_time_line writes them.
#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/site/task_times.hpp"

using hetscale::fuzz::require;

int hetscale_fuzz_task_times(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetscale::fuzz::text_of(data, size);
  std::vector<hetscale::TaskTime> times;
  try {
    times = hetscale::parse_task_times(text, "n1.tasks");
  } catch (const hetscale::Error& e) {
    require(std::string_view(e.what()).rfind("n1.tasks:", 0) == 0, "an error that names no line");
    return 0;
  }
  require(times.size() <= hetscale::kMaxTaskTimesPerNode, "more tasks than a file may hold");
  std::string written;
  for (const hetscale::TaskTime& time : times) {
    require(time.start_ns > 0 && time.exit_ns >= time.start_ns, "a task that exits before it starts");
    written += hetscale::task_time_line(time);
  }
  require(written.size() <= hetscale::kMaxTaskTimesFileBytes, "a line longer than the file's bound allows");
  require(hetscale::parse_task_times(written, "n1.tasks") == times, "the written lines read back differently");
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_task_times(data, size);
}
#endif
