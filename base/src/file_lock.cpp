#include "hetscale/base/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

// The pid the holder wrote: digits only, or "" when the file holds none (yet).
std::string holder_of(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buffer[i] >= '0' && buffer[i] <= '9'; ++i) pid += buffer[i];
  return pid;
}

}  // namespace

ExclusiveFileLock::ExclusiveFileLock(const std::filesystem::path& path, const std::string& what) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw Error("cannot open the lock " + path.string() + ": " + std::strerror(errno));
  int status = 0;
  do status = ::flock(fd_, LOCK_EX | LOCK_NB);
  while (status != 0 && errno == EINTR);
  if (status != 0) {
    const int error = errno;
    const std::string pid = error == EWOULDBLOCK ? holder_of(fd_) : std::string();
    ::close(fd_);
    if (error != EWOULDBLOCK) throw Error("cannot lock " + path.string() + ": " + std::strerror(error));
    throw Error(what + " is already running (" + (pid.empty() ? std::string() : "process " + pid + ", ") + "lock " +
                path.string() + ")");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock holds without the pid; a second process's message just does not name it.
  }
}

ExclusiveFileLock::~ExclusiveFileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace hetscale
