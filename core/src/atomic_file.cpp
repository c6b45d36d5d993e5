#include "hetscale/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
  throw Error(fmt::format("cannot write {}: {}", path.string(), why));
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written == 0) errno = EIO;
    if (written <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(path, ec.message());
  // A sibling, so that the rename stays on one file system.
  std::string temporary = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) fail(path, std::strerror(errno));
  int error = 0;
  if (::fchmod(fd, 0644) != 0 || !write_all(fd, text) || ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(path, std::strerror(error));
  }
}

}  // namespace hetscale
