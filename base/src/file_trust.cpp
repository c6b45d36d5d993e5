#include "hetscale/base/file_trust.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hetscale {

std::optional<std::string> untrusted_reason(const struct stat& st, std::span<const uid_t> owners) {
  if (S_ISLNK(st.st_mode)) return std::string("is a symbolic link");
  bool owned = false;
  for (uid_t owner : owners) owned = owned || st.st_uid == owner;
  if (!owned) {
    std::string expected;
    for (std::size_t i = 0; i < owners.size(); ++i) {
      if (i > 0) expected += i + 1 == owners.size() ? " or " : ", ";
      expected += std::to_string(owners[i]);
    }
    return "is owned by uid " + std::to_string(st.st_uid) + ", not uid " + expected;
  }
  if ((st.st_mode & 022) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("is writable by its group or others (mode ") + mode + ")";
  }
  return std::nullopt;
}

std::optional<std::string> untrusted_reason(const std::filesystem::path& path,
                                            std::span<const uid_t> owners) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::string(std::strerror(errno));
  return untrusted_reason(st, owners);
}

}  // namespace hetscale
