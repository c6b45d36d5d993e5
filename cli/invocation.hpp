// Facts about this invocation that several subcommands write into what they generate.
#pragma once

#include <string>

namespace hetscale::cli {

/// The directory of the running hetscale executable: the bundled kernels are installed
/// (or built) beside it. "/usr/local/bin" when /proc/self/exe cannot be read.
std::string own_directory();

/// The current time as ISO 8601 UTC to the second ("2026-11-23T21:50:27Z").
std::string now_utc();

}  // namespace hetscale::cli
