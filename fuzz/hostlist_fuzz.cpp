// Host lists (site/src/hostlist.cpp): from site tables, specs, partition files and Slurm's
// environment. The input is expanded as an expression (ExpressionError or hosts); the
// hosts, and the valid names among the input's comma- or newline-separated words, must
// come back unchanged from expand_hostlist(compress_hostlist(...)), as given and sorted.
#include <algorithm>

#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"

namespace {

using hetscale::fuzz::require;

// Round trips of bigger lists add time, not coverage.
constexpr std::size_t max_round_trip_hosts = 2'000;

bool is_name(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '.' || c == '_';
  });
}

void round_trip(const std::vector<std::string>& hosts) {
  if (hosts.empty() || hosts.size() > max_round_trip_hosts) return;
  const std::string compressed = hetscale::compress_hostlist(hosts);
  std::vector<std::string> back;
  try {
    back = hetscale::expand_hostlist(compressed);
  } catch (const hetscale::ExpressionError& e) {
    throw hetscale::fuzz::PropertyBroken("compressed list '" + compressed +
                                         "' does not expand: " + e.what());
  }
  require(back == hosts, "expand(compress(hosts)) differs from hosts, via '" + compressed + "'");
}

}  // namespace

int hetscale_fuzz_hostlist(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetscale::fuzz::text_of(data, size);
  try {
    std::vector<hetscale::HostlistTerm> terms;
    const std::vector<std::string> hosts = hetscale::expand_hostlist(text, terms);
    require(!terms.empty() && terms.front().first_host == 0, "first term does not start at 0");
    for (std::size_t i = 0; i < terms.size(); ++i) {
      require(terms[i].column >= 1 && terms[i].column <= text.size(), "term column out of range");
      require(terms[i].first_host <= hosts.size(), "term's first host out of range");
      if (i > 0) require(terms[i - 1].first_host < terms[i].first_host, "terms out of order");
    }
    for (const std::string& host : hosts) require(is_name(host), "expanded an invalid name");
    round_trip(hosts);
    if (hosts.size() <= max_round_trip_hosts) round_trip(hetscale::sort_hostnames(hosts));
  } catch (const hetscale::ExpressionError& e) {
    require(e.column() >= 1 && e.column() <= text.size() + 1, "error column out of range");
  }

  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',' || text[i] == '\n') {
      const std::string_view word = text.substr(start, i - start);
      if (is_name(word)) words.emplace_back(word);
      start = i + 1;
    }
  }
  round_trip(words);
  round_trip(hetscale::sort_hostnames(words));
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_hostlist(data, size);
}
#endif
