// Finding a program on a PATH list, as a shell does.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace hetscale {

/// The first `dir/name` of the ':'-separated `path_list` that is an executable regular
/// file; an empty entry is `base`, a relative one is under `base` (an empty `base`: the
/// current directory). `name` is a bare name, without '/'.
std::optional<std::filesystem::path> find_on_path(std::string_view name, std::string_view path_list,
                                                  const std::filesystem::path& base);

}  // namespace hetscale
