// An exclusive lock held on a lock file (flock(2)) while a process does something no second
// process may do at the same time, e.g. a step of a study.
#pragma once

#include <filesystem>
#include <string>

namespace hetscale {

/// Opens (creating it 0600) `path`, takes flock(LOCK_EX | LOCK_NB) on it and writes this
/// process's pid into it; the lock is released when the object is destroyed or the process
/// ends, however it ends. When another holds it, throws Error("<what> is already running
/// (process <pid>, lock <path>)"), the pid read from the file (left out when unknown).
/// flock locks belong to the open file: a second lock in the same process is refused too.
class ExclusiveFileLock {
 public:
  ExclusiveFileLock(const std::filesystem::path& path, const std::string& what);
  ~ExclusiveFileLock();
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace hetscale
