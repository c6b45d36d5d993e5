#include "invocation.hpp"

#include <filesystem>

namespace hetscale::cli {

std::string own_directory() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/usr/local/bin") : self.parent_path().string();
}

}  // namespace hetscale::cli
