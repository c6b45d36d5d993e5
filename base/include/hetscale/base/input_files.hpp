// The files a command reads from its inputs: a file is itself; a directory gives its
// files with the wanted extensions, recursively, in name order.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace hetscale {

std::vector<std::filesystem::path> input_files(const std::filesystem::path& input,
                                               std::initializer_list<std::string_view> extensions);

}  // namespace hetscale
