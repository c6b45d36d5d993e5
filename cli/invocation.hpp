// Facts about this invocation that several subcommands write into what they generate.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hetscale::cli {

/// The running hetscale executable (/proc/self/exe); none when that cannot be read.
std::optional<std::filesystem::path> own_executable();

/// The directory of the running hetscale executable: the bundled kernels are installed
/// (or built) beside it. "/usr/local/bin" when /proc/self/exe cannot be read.
std::string own_directory();

}  // namespace hetscale::cli
