#include "hetscale/base/text_file.hpp"

#include <fstream>
#include <sstream>

#include "hetscale/base/error.hpp"

namespace hetscale {

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path.string(), 0, 0}, "cannot read the " + std::string(what));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError({path.string(), 0, 0}, "cannot read the " + std::string(what));
  return text.str();
}

}  // namespace hetscale
