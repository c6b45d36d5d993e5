// Text put into XML or HTML (the twin's SimGrid platform, the report's SVG and pages):
// the one escaping function.
#pragma once

#include <string>
#include <string_view>

namespace hetscale {

/// `text` with & < > " ' escaped, and newline, carriage return and tab as character
/// references, so the result is safe in element content and in attribute values (where a
/// literal newline would be normalised to a space) of XML and HTML alike.
std::string escape_xml(std::string_view text);

}  // namespace hetscale
