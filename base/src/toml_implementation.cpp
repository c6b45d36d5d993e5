// toml++'s implementation, compiled once for the whole project (every other source
// includes its declarations only: TOML_HEADER_ONLY=0, base/CMakeLists.txt).
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
