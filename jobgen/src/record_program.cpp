// A command's program against [code] record = "program": found as the job finds it, then
// looked at for a sign of the record helpers (docs/experiment-spec.md, "[code] record").
#include "hetscale/jobgen/record_program.hpp"

#include <elf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <vector>

#include "hetscale/base/executable_search.hpp"
#include "hetscale/base/regular_file.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;

// What links the library behind the Fortran and Python modules needs (libhetscale_record.so.1).
constexpr std::string_view record_library = "libhetscale_record.so";
// What a script that uses a helper names: the Python module, the library, the headers.
constexpr std::string_view helper_name = "hetscale_record";

// The first of `markers` found in the rest of `in`, read a chunk at a time; empty if none.
std::string_view first_marker(std::istream& in, std::initializer_list<std::string_view> markers) {
  std::size_t longest = 0;
  for (std::string_view m : markers) longest = std::max(longest, m.size());
  std::vector<char> chunk(std::size_t{1} << 20);
  std::string window;  // the chunk after the tail of the one before, so a marker across them is found
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    window.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    for (std::string_view m : markers)
      if (window.find(m) != std::string::npos) return m;
    if (window.size() >= longest) window.erase(0, window.size() - (longest - 1));
  }
  return {};
}

template <class T>
bool read_at(std::istream& in, std::uint64_t offset, T& value) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(&value), sizeof value);
  return static_cast<std::size_t>(in.gcount()) == sizeof value;
}

// The DT_NEEDED names of an ELF file of one class (Elf32_* or Elf64_* types), read through
// its program headers as the dynamic loader reads them; none when the file is not what
// its header says.
template <class Ehdr, class Phdr, class Dyn>
std::vector<std::string> needed_libraries(std::istream& in) {
  Ehdr header;
  if (!read_at(in, 0, header) || header.e_phentsize != sizeof(Phdr)) return {};
  std::vector<Phdr> segments(header.e_phnum);
  for (std::size_t i = 0; i < segments.size(); ++i)
    if (!read_at(in, header.e_phoff + i * sizeof(Phdr), segments[i])) return {};
  // A virtual address to its offset in the file, through the loaded segment holding it.
  auto file_offset = [&](std::uint64_t address) -> std::optional<std::uint64_t> {
    for (const Phdr& s : segments)
      if (s.p_type == PT_LOAD && address >= s.p_vaddr && address - s.p_vaddr < s.p_filesz)
        return s.p_offset + (address - s.p_vaddr);
    return std::nullopt;
  };
  const auto dynamic = std::find_if(segments.begin(), segments.end(), [](const Phdr& s) { return s.p_type == PT_DYNAMIC; });
  if (dynamic == segments.end()) return {};
  std::optional<std::uint64_t> strings;
  std::vector<std::uint64_t> needed;
  for (std::uint64_t at = dynamic->p_offset; at + sizeof(Dyn) <= dynamic->p_offset + dynamic->p_filesz; at += sizeof(Dyn)) {
    Dyn entry;
    if (!read_at(in, at, entry) || entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_STRTAB) strings = file_offset(entry.d_un.d_ptr);
    if (entry.d_tag == DT_NEEDED) needed.push_back(entry.d_un.d_val);
  }
  std::vector<std::string> names;
  if (!strings) return names;
  for (std::uint64_t name : needed) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(*strings + name));
    std::string text;
    if (std::getline(in, text, '\0')) names.push_back(std::move(text));
  }
  return names;
}

// needed_libraries of an ELF file of this host's byte order (the e_ident bytes of `head`).
std::vector<std::string> needed_libraries(std::istream& in, std::string_view head) {
  const unsigned char order = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  if (head.size() < EI_NIDENT || static_cast<unsigned char>(head[EI_DATA]) != order) return {};
  if (head[EI_CLASS] == ELFCLASS64) return needed_libraries<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(in);
  if (head[EI_CLASS] == ELFCLASS32) return needed_libraries<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(in);
  return {};
}

bool is_executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The first word of a command line, expanded as far as it can be before the job runs.
class FirstWord {
 public:
  FirstWord(std::string_view command, std::string_view parameter, const ProgramLookup& lookup)
      : s_(command), parameter_(parameter), lookup_(lookup) {}

  // The word (after any NAME=value assignments): as written, and its value or the problem.
  ResolvedProgram read(std::string& value) {
    for (;;) {
      while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t')) ++at_;
      const std::size_t start = at_;
      value.clear();
      problem_.clear();
      const bool assignment = read_word(value);
      ResolvedProgram out{std::string(s_.substr(start, at_ - start)), std::nullopt, problem_};
      if (!assignment) return out;
      if (at_ >= s_.size() || std::string_view(" \t").find(s_[at_]) == std::string_view::npos) {
        out.problem = "is an assignment, not a program";
        return out;
      }
    }
  }

 private:
  // Reads up to the next unquoted blank or operator; true when the word is NAME=value.
  bool read_word(std::string& value) {
    const std::size_t start = at_;
    std::size_t name_end = start;
    while (name_end < s_.size() && is_name_char(s_[name_end])) ++name_end;
    const bool assignment = name_end > start && !std::isdigit(static_cast<unsigned char>(s_[start])) &&
                            name_end < s_.size() && s_[name_end] == '=';
    while (at_ < s_.size() && std::string_view(" \t\n;&|<>()").find(s_[at_]) == std::string_view::npos) {
      const char c = s_[at_];
      if (c == '\\' && at_ + 1 < s_.size()) {
        value += s_[at_ + 1];
        at_ += 2;
      } else if (c == '\'') {
        const std::size_t close = s_.find('\'', at_ + 1);
        if (close == std::string_view::npos) return unclosed();
        value += s_.substr(at_ + 1, close - at_ - 1);
        at_ = close + 1;
      } else if (c == '"') {
        if (!read_double_quoted(value)) return unclosed();
      } else if (c == '$' || c == '`') {
        expand(value);
      } else if (c == '~' && at_ == start && (at_ + 1 == s_.size() || s_[at_ + 1] == '/')) {
        ++at_;
        value += variable("HOME");
      } else if (!placeholder()) {
        value += c;
        ++at_;
      }
    }
    return assignment;
  }

  bool read_double_quoted(std::string& value) {
    for (++at_; at_ < s_.size() && s_[at_] != '"';) {
      if (s_[at_] == '\\' && at_ + 1 < s_.size() && std::string_view("$`\"\\").find(s_[at_ + 1]) != std::string_view::npos) {
        value += s_[at_ + 1];
        at_ += 2;
      } else if (s_[at_] == '$' || s_[at_] == '`') {
        expand(value);
      } else if (!placeholder()) {
        value += s_[at_++];
      }
    }
    if (at_ >= s_.size()) return false;
    ++at_;
    return true;
  }

  // {N}, which the script writes ${N}: skipped, and true, when it starts here.
  bool placeholder() {
    if (!s_.substr(at_).starts_with(fmt::format("{{{}}}", parameter_))) return false;
    at_ += parameter_.size() + 2;
    job_variable(parameter_);
    return true;
  }

  bool unclosed() {
    at_ = s_.size();
    if (problem_.empty()) problem_ = "has a quote that is not closed";
    return false;
  }

  // $NAME or ${NAME}; any other expansion ($(...), `...`, ${NAME:-x}, $1) is the shell's.
  void expand(std::string& value) {
    const bool braced = s_.substr(at_).starts_with("${");
    const std::size_t name_start = at_ + (braced ? 2 : 1);
    std::size_t name_end = name_start;
    while (name_end < s_.size() && is_name_char(s_[name_end])) ++name_end;
    const bool named = s_[at_] == '$' && name_end > name_start &&
                       !std::isdigit(static_cast<unsigned char>(s_[name_start])) &&
                       (!braced || (name_end < s_.size() && s_[name_end] == '}'));
    if (!named) {
      if (problem_.empty()) problem_ = "holds a shell expansion done only when the job runs";
      skip_expansion();
      return;
    }
    at_ = name_end + (braced ? 1 : 0);
    value += variable(std::string(s_.substr(name_start, name_end - name_start)));
  }

  // Past $(...) or `...` (so that the word holds it whole), or past the '$' of another one.
  void skip_expansion() {
    if (s_[at_] == '`') {
      const std::size_t close = s_.find('`', at_ + 1);
      at_ = close == std::string_view::npos ? s_.size() : close + 1;
      return;
    }
    if (!s_.substr(at_).starts_with("$(")) {
      ++at_;
      return;
    }
    int depth = 0;
    for (; at_ < s_.size(); ++at_) {
      if (s_[at_] == '(') ++depth;
      if (s_[at_] == ')' && --depth == 0) break;
    }
    at_ = std::min(at_ + 1, s_.size());
  }

  std::string variable(const std::string& name) {
    if (name == parameter_ || name == "repetition" || name == "repetitions" || name.starts_with("SLURM_") ||
        name.starts_with("HETSCALE_")) {
      job_variable(name);
      return {};
    }
    if (name == "study_dir") return lookup_.run_dir.string();
    if (std::optional<std::string> v = lookup_.variable(name)) return *v;
    if (problem_.empty()) problem_ = fmt::format("names ${}, which is not set here", name);
    return {};
  }

  void job_variable(std::string_view name) {
    if (problem_.empty()) problem_ = fmt::format("names ${}, which is set only when the job runs", name);
  }

  std::string_view s_;
  std::string_view parameter_;
  const ProgramLookup& lookup_;
  std::size_t at_ = 0;
  std::string problem_;
};

// The executable `value` names: a path (relative ones under the run directory) or a name
// on the PATH.
void find_program(const std::string& value, const ProgramLookup& lookup, ResolvedProgram& out) {
  if (value.find('/') != std::string::npos) {
    const fs::path path = (fs::path(value).is_absolute() ? fs::path(value) : lookup.run_dir / value).lexically_normal();
    std::string as;
    if (fs::path(value).is_relative()) as = fmt::format(" ({}: a relative path starts in the study directory, where the job runs)", path.string());
    else if (value != out.word) as = fmt::format(" ({})", value);
    std::error_code ec;
    if (is_executable_file(path)) out.path = path;
    else out.problem = (fs::exists(path, ec) ? "is not an executable file" : "does not exist") + as;
    return;
  }
  const std::optional<std::string> dirs = lookup.variable("PATH");
  if (!dirs) {
    out.problem = "is not found: PATH is not set here";
    return;
  }
  // An empty or relative entry: the run directory.
  if (auto found = find_on_path(value, *dirs, lookup.run_dir)) out.path = std::move(*found);
  else out.problem = "is not on the PATH";
}

}  // namespace

RecordSign record_sign(const fs::path& program) {
  std::error_code ec;
  if (!fs::is_regular_file(program, ec)) throw FileReadError(program, "not a regular file");
  std::ifstream in(program, std::ios::binary);
  if (!in) throw FileReadError(program, std::strerror(errno));
  std::string head(EI_NIDENT, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.starts_with(ELFMAG)) {
    for (const std::string& library : needed_libraries(in, head))
      if (library.starts_with(record_library)) return {"needs " + library};
    in.clear();
    in.seekg(0);
    if (!first_marker(in, {record_variable_marker}).empty()) return {fmt::format("holds {}", record_variable_marker)};
    return {};
  }
  if (head.starts_with("#!")) {
    in.clear();
    in.seekg(0);
    const std::string_view found = first_marker(in, {helper_name, record_variable_marker});
    if (!found.empty()) return {fmt::format("names {}", found)};
  }
  return {};
}

std::optional<std::string> environment_variable(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

ResolvedProgram resolve_program(std::string_view command, std::string_view parameter, const ProgramLookup& lookup) {
  std::string value;
  ResolvedProgram out = FirstWord(command, parameter, lookup).read(value);
  if (!out.problem.empty()) return out;
  if (value.empty()) {
    out.problem = "is empty";
    return out;
  }
  find_program(value, lookup, out);
  return out;
}

std::optional<std::string> record_program_warning(const ExperimentSpec& spec, const ProgramLookup& lookup) {
  if (spec.code.kernel || spec.code.record != RecordWriter::program) return std::nullopt;
  const std::string head = fmt::format("{}: warning: [code] record = \"program\" but ", spec.code.record_where.str());
  const std::string_view fix = "set [code] record = \"step\" to have each step timed from outside";
  ResolvedProgram program = resolve_program(spec.code.command, spec.parameter.name, lookup);
  if (program.path) {
    try {
      if (record_sign(*program.path).found()) return std::nullopt;
      return head + fmt::format("'{}' shows no sign of writing a run record (it does not use hetscale_record.h, "
                                "libhetscale_record or {}); its tasks would run and record nothing: {}",
                                program.path->string(), record_variable_marker, fix);
    } catch (const FileReadError& e) {
      program.problem = fmt::format("cannot be read ({})", e.reason());
    }
  }
  return head + fmt::format("the command's program '{}' {}, so it is not checked for a sign of writing a run "
                            "record; if it writes none, its tasks would run and record nothing: {}",
                            program.word, program.problem, fix);
}

}  // namespace hetscale::jobgen
