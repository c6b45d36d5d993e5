// Temporary file beside the target, fsync, rename, fsync of the directory.
#include "hetscale/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, int error) {
  throw Error("cannot write " + path.string() + ": " + std::strerror(error));
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text, mode_t mode) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string temporary = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) fail(path, errno);
  const bool written = ::fchmod(fd, mode) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  const int error = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const int cause = !written ? error : errno;
    ::unlink(temporary.c_str());
    fail(path, cause);
  }
  // The rename itself reaches the disk with the directory (best effort: a directory that
  // cannot be opened read-only still has the new file).
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace hetscale
