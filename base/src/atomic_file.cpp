// Temporary file beside the target, fsync, rename, fsync of the directory.
#include "hetscale/base/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "hetscale/base/error.hpp"

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

// The rename reaches the disk with the directory (best effort: a directory that cannot be
// opened for reading still has the new file).
void sync_directory(const std::filesystem::path& dir) {
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : ".";
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text, mode_t mode) {
  const std::filesystem::path dir = directory_of(path);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(path, ec.message());
  // A sibling, so that the rename stays on one file system. (Appended piece by piece: GCC 12
  // reports a false -Wrestrict at -O3 for `"." + name + ".XXXXXX"`.)
  std::string name = ".";
  name += path.filename().string();
  name += ".XXXXXX";
  std::string temporary = (dir / name).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) fail(path, std::strerror(errno));
  int error = 0;
  if (::fchmod(fd, mode) != 0 || !write_all(fd, text) || ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(path, std::strerror(error));
  }
  sync_directory(dir);
}

void move_file_into_place(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) fail(to, std::strerror(errno));
  sync_directory(directory_of(to));
}

}  // namespace hetscale
