#include "invocation.hpp"

namespace hetscale::cli {

std::optional<std::filesystem::path> own_executable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return self;
}

std::string own_directory() {
  const auto self = own_executable();
  return self ? self->parent_path().string() : std::string("/usr/local/bin");
}

}  // namespace hetscale::cli
