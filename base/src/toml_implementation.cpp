// toml++'s implementation, compiled once for the whole project (every other source
// includes its declarations only: TOML_HEADER_ONLY=0, base/CMakeLists.txt).
//
// toml++ 3.3 asserts, at the first key of a table header, that the key starts with a key
// character or a quote; its parser then checks the same thing itself and reports a parse
// error ("expected bare key starting character or string delimiter"). The assertion, not
// the input, is wrong: `[{]` or `[` followed by a control character is a syntax error, not
// a broken invariant. So here an assertion is kept, and aborts, only when assertions are on
// and it is not that one; and with NDEBUG no assertion becomes an optimiser assumption
// (toml++ would turn it into __builtin_assume, undefined behaviour on such input).
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hetscale::detail {

[[noreturn]] void toml_assertion_failed(const char* expression, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: toml++ assertion failed: %s\n", file, line, expression);
  std::abort();
}

bool toml_assertion_checked_by_parser(const char* expression) {
  return std::strcmp(expression, "is_bare_key_character(*cp) || is_string_delimiter(*cp)") == 0;
}

}  // namespace hetscale::detail

#ifdef NDEBUG
#define HETSCALE_TOML_ASSERTIONS 0
#undef NDEBUG
#else
#define HETSCALE_TOML_ASSERTIONS 1
#endif

#if HETSCALE_TOML_ASSERTIONS
#define TOML_ASSERT(expr)                                                          \
  ((expr) || ::hetscale::detail::toml_assertion_checked_by_parser(#expr)           \
       ? static_cast<void>(0)                                                      \
       : ::hetscale::detail::toml_assertion_failed(#expr, __FILE__, __LINE__))
#else
#define TOML_ASSERT(expr) static_cast<void>(0)
#endif

#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
