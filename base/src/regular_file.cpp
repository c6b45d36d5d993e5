#include "hetscale/base/regular_file.hpp"

#include "hetscale/base/file_trust.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace hetscale {
namespace {

// Closes the descriptor on every way out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& reason) {
  throw FileReadError(path, reason);
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// `owners`: when given, the file must be trusted for them (file_trust.hpp), and a
// symbolic link is refused.
std::string read_file(const std::filesystem::path& path, std::size_t max_bytes,
                      const std::span<const uid_t>* owners) {
  // A look before opening: opening a device can have effects of its own.
  struct stat before {};
  if ((owners ? ::lstat(path.c_str(), &before) : ::stat(path.c_str(), &before)) != 0)
    refuse(path, std::strerror(errno));
  if (owners && S_ISLNK(before.st_mode)) refuse(path, "is a symbolic link");
  if (!S_ISREG(before.st_mode))
    refuse(path, "is " + kind_of(before.st_mode) + ", not a regular file");
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
  Descriptor fd(::open(path.c_str(),
                       O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (owners ? O_NOFOLLOW : 0)));
  if (fd.get() < 0) refuse(path, std::strerror(errno));
  // And a look at what was opened, which may have been swapped in since.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) refuse(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse(path, "is " + kind_of(st.st_mode) + ", not a regular file");
  if (owners) {
    if (std::optional<std::string> why = untrusted_reason(st, *owners)) refuse(path, *why);
  }
  struct statfs fs {};
  if (::fstatfs(fd.get(), &fs) != 0) refuse(path, std::strerror(errno));
  if (fs.f_type == PROC_SUPER_MAGIC) refuse(path, "is on /proc, which is never read");
  const std::string cap = "larger than the " + std::to_string(max_bytes) + " bytes allowed";
  if (static_cast<std::size_t>(st.st_size) > max_bytes) refuse(path, "is " + cap);
  // Reads until end of file, but never past the cap: a file still growing is refused.
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t used = 0;
  while (true) {
    if (used == text.size()) {
      if (text.size() > max_bytes) refuse(path, "is " + cap);
      text.resize(std::min(max_bytes + 1, std::max<std::size_t>(text.size() * 2, 4096)));
    }
    ssize_t n = ::read(fd.get(), text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(path, std::strerror(errno));
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  if (used > max_bytes) refuse(path, "is " + cap);
  text.resize(used);
  return text;
}

}  // namespace

std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  return read_file(path, max_bytes, nullptr);
}

std::string read_trusted_file(const std::filesystem::path& path, std::size_t max_bytes,
                              std::span<const uid_t> owners) {
  return read_file(path, max_bytes, &owners);
}

}  // namespace hetscale
