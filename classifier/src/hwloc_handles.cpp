#include "hetscale/classifier/hwloc_handles.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

// hwloc explains why it cannot read an XML topology only on stderr, and only when
// HWLOC_XML_VERBOSE is set before its first XML import in the process (it reads the
// variable once); libxml2, under it, prints its parser errors there too. The variable is
// set (unless the user set it) before any topology exists, and the messages are captured
// around the calls that read a file.
void ask_hwloc_to_explain_xml_errors() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("HWLOC_XML_VERBOSE", "1", 0); });
}

// Redirects stderr (the file descriptor) to a temporary file until text() is called: a
// process reads one topology at a time, and nothing else writes meanwhile.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    if (file_ == nullptr) return;
    saved_ = dup(STDERR_FILENO);
    if (saved_ < 0 || dup2(fileno(file_), STDERR_FILENO) < 0) restore();
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  ~StderrCapture() {
    restore();
    if (file_ != nullptr) std::fclose(file_);
  }

  /// Ends the capture; what was written meanwhile.
  std::string text() {
    restore();
    std::string out;
    if (file_ == nullptr) return out;
    std::rewind(file_);
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file_)) > 0;)
      out.append(buffer, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
  }

  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

bool is_caret_line(const std::string& line) {
  return line.find('^') != std::string::npos && line.find_first_not_of(" \t^") == std::string::npos;
}

// hwloc's and libxml2's messages as one line: libxml2's excerpt of the file and the caret
// under it are left out, repeated lines kept once, at most the last four.
std::string condensed(const std::string& messages) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < messages.size()) {
    const std::size_t end = std::min(messages.find('\n', start), messages.size());
    lines.push_back(messages.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const bool excerpt = i + 1 < lines.size() && is_caret_line(lines[i + 1]);
    if (excerpt || is_caret_line(lines[i]) ||
        lines[i].find_first_not_of(" \t\r") == std::string::npos)
      continue;
    if (std::find(kept.begin(), kept.end(), lines[i]) == kept.end()) kept.push_back(lines[i]);
  }
  if (kept.size() > 4) kept.erase(kept.begin(), kept.end() - 4);
  return fmt::format("{}", fmt::join(kept, "; "));
}

// The reason for a failed hwloc call: hwloc's messages, else errno's text.
std::string reason(const std::string& messages, int error, const char* otherwise) {
  if (std::string text = condensed(messages); !text.empty()) return text;
  return error != 0 ? std::strerror(error) : otherwise;
}

}  // namespace

HwlocBitmap::HwlocBitmap() : bitmap_(hwloc_bitmap_alloc()) {
  if (bitmap_ == nullptr) throw std::bad_alloc();
}

HwlocBitmap::HwlocBitmap(hwloc_const_bitmap_t copy_of) : bitmap_(hwloc_bitmap_dup(copy_of)) {
  if (bitmap_ == nullptr) throw std::bad_alloc();
}

HwlocBitmap::HwlocBitmap(HwlocBitmap&& other) noexcept
    : bitmap_(std::exchange(other.bitmap_, nullptr)) {}

HwlocBitmap& HwlocBitmap::operator=(HwlocBitmap&& other) noexcept {
  std::swap(bitmap_, other.bitmap_);
  return *this;
}

HwlocBitmap::~HwlocBitmap() {
  if (bitmap_ != nullptr) hwloc_bitmap_free(bitmap_);
}

std::vector<unsigned> HwlocBitmap::indices() const {
  std::vector<unsigned> out;
  for (int i = hwloc_bitmap_first(bitmap_); i >= 0; i = hwloc_bitmap_next(bitmap_, i))
    out.push_back(static_cast<unsigned>(i));
  return out;
}

HwlocTopology::HwlocTopology(const HwlocFilters& filters) {
  ask_hwloc_to_explain_xml_errors();
  if (hwloc_topology_init(&topology_) != 0) throw Error("hwloc: cannot initialise a topology");
  // The whole machine, not only the job's CPUs: the fingerprint must not depend on the
  // allocation. The allocation is read separately (allowed cpuset, binding).
  hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  // PCI devices and their OS devices, to find accelerators.
  hwloc_topology_set_io_types_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  hwloc_topology_set_type_filter(topology_, HWLOC_OBJ_OS_DEVICE, filters.os_devices);
  // Memory-side caches (hwloc leaves them out by default).
  hwloc_topology_set_type_filter(topology_, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
}

HwlocTopology::HwlocTopology(HwlocTopology&& other) noexcept
    : topology_(std::exchange(other.topology_, nullptr)) {}

HwlocTopology& HwlocTopology::operator=(HwlocTopology&& other) noexcept {
  std::swap(topology_, other.topology_);
  return *this;
}

HwlocTopology::~HwlocTopology() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

void HwlocTopology::load(const std::string& what) {
  errno = 0;
  if (hwloc_topology_load(topology_) != 0)
    throw Error(fmt::format("hwloc: cannot load the topology of {}: {}", what,
                            errno != 0 ? std::strerror(errno) : "unknown error"));
}

HwlocTopology HwlocTopology::live() {
  HwlocTopology t;
  t.load("this machine");
  return t;
}

// A recorded topology is read by hwloc's XML reader in a child process. The reader trusts
// its input: on some malformed files (found by fuzz/topology_fuzz.cpp) the hwloc of Debian
// 12 dereferences a null pointer or leaks. The child loads the file and sends back hwloc's
// own export of what it read (or hwloc's explanation of why it could not); the parent loads
// that export, which hwloc wrote. A crash, a hang or a leak stays in the child, and the
// caller gets an Error naming it.
namespace {

// How long the child may take: the largest real topology (a few hundred kB) reads and is
// written back in well under a second. Some malformed files keep hwloc's writer busy for
// minutes (a processor set with an index in the billions).
constexpr int kXmlReadSeconds = 10;

// Loads an XML text into a topology not yet loaded: false (errno set) when it cannot.
bool load_xml_text(hwloc_topology_t topology, std::string_view text) {
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    errno = EFBIG;
    return false;
  }
  return hwloc_topology_set_xmlbuffer(topology, text.data(), static_cast<int>(text.size())) == 0 &&
         hwloc_topology_load(topology) == 0;
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// In the child: load, then write 'X' and hwloc's export, or 'E' and the reason. Never returns.
// `path` names a file, else `text` is the XML.
[[noreturn]] void read_xml_in_child(int fd, const std::string* path, std::string_view text,
                                    hwloc_topology_t topology) {
  // A crash ends the child by its signal, which the parent names: no handler of the parent
  // (a sanitizer's, a fuzzer's) runs in the child.
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, nullptr);
  }
  StderrCapture messages;
  errno = 0;
  const bool loaded = path != nullptr ? hwloc_topology_set_xml(topology, path->c_str()) == 0 &&
                                            hwloc_topology_load(topology) == 0
                                      : load_xml_text(topology, text);
  if (!loaded) {
    const int error = errno;
    write_all(fd, "E");
    write_all(fd, reason(messages.text(), error,
                         path != nullptr ? "not a valid hwloc XML file"
                                                : "not a valid hwloc XML text"));
    _exit(0);
  }
  char* xml = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(topology, &xml, &length, 0) != 0 || length <= 0) {
    write_all(fd, "E");
    write_all(fd, "hwloc cannot write back the topology it read");
    _exit(0);
  }
  write_all(fd, "X");
  // hwloc counts the terminating null byte in the length.
  write_all(fd, std::string_view(xml, static_cast<std::size_t>(length) - 1));
  _exit(0);
}

// In the parent: everything the child writes until it closes the pipe, within the bound.
// Empty when the child closed it; else why the parent stopped waiting (the bound ran out, or
// the pipe could not be waited on), and the caller kills the child.
std::string read_until_closed(int fd, std::string& out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kXmlReadSeconds);
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return fmt::format("hwloc did not finish reading it in {} s", kXmlReadSeconds);
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return fmt::format("cannot wait for hwloc's reader: {}", std::strerror(errno));
    if (ready == 0) return fmt::format("hwloc did not finish reading it in {} s", kXmlReadSeconds);
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fmt::format("cannot read hwloc's reader's answer: {}", std::strerror(errno));
    if (n == 0) return {};
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

HwlocTopology HwlocTopology::read_xml_isolated(const std::string* path, std::string_view text,
                                               const std::string& what, const HwlocFilters& filters) {
  HwlocTopology t(filters);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error(fmt::format("hwloc: cannot read topology {}: no pipe: {}", what, std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(fmt::format("hwloc: cannot read topology {}: cannot fork: {}", what, std::strerror(error)));
  }
  if (child == 0) {
    ::close(fds[0]);
    read_xml_in_child(fds[1], path, text, t.topology_);
  }
  ::close(fds[1]);
  std::string answer;
  const std::string unfinished = read_until_closed(fds[0], answer);
  ::close(fds[0]);
  if (!unfinished.empty()) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!unfinished.empty()) throw Error(fmt::format("hwloc: cannot read topology {}: {}", what, unfinished));
  if (WIFSIGNALED(status))
    throw Error(fmt::format("hwloc: cannot read topology {}: hwloc's reader stopped on it with signal "
                            "{} ({}), a defect of hwloc on a malformed file",
                            what, WTERMSIG(status), strsignal(WTERMSIG(status))));
  if (answer.empty() || (answer[0] != 'X' && answer[0] != 'E'))
    throw Error(fmt::format("hwloc: cannot read topology {}: hwloc's reader ended with no answer "
                            "(exit status {})",
                            what, WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  if (answer[0] == 'E')
    throw Error(fmt::format("hwloc: cannot read topology {}: {}", what, answer.substr(1)));
  StderrCapture messages;
  errno = 0;
  const std::string_view xml = std::string_view(answer).substr(1);
  if (!load_xml_text(t.topology_, xml)) {
    const int error = errno;
    throw Error(fmt::format("hwloc: cannot read topology {} back from hwloc's own export: {}", what,
                            reason(messages.text(), error, "not a valid hwloc XML text")));
  }
  return t;
}

HwlocTopology HwlocTopology::from_xml(const std::string& path, const HwlocFilters& filters) {
  // A file that cannot be opened says so plainly (libxml2 would call it an "external entity").
  if (const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC); fd < 0) {
    throw Error(fmt::format("hwloc: cannot read topology file '{}': {}", path, std::strerror(errno)));
  } else {
    close(fd);
  }
  return read_xml_isolated(&path, {}, fmt::format("file '{}'", path), filters);
}

HwlocTopology HwlocTopology::from_xml_text(std::string_view text, const std::string& name,
                                           const HwlocFilters& filters) {
  return read_xml_isolated(nullptr, text, name, filters);
}

HwlocTopology HwlocTopology::synthetic(const std::string& description) {
  HwlocTopology t;
  if (hwloc_topology_set_synthetic(t.topology_, description.c_str()) != 0)
    throw Error(fmt::format("hwloc: invalid synthetic topology \"{}\"", description));
  t.load(fmt::format("synthetic \"{}\"", description));
  return t;
}

bool HwlocTopology::is_this_system() const {
  return hwloc_topology_is_thissystem(topology_) != 0;
}

}  // namespace hetscale
