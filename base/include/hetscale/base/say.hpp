// What a library call says while it works, as data: one line at a time (each ending in
// '\n'), a result or a note, handed to the caller's function as it is said, so that what
// came before a failure is said too. `hetscale` prints results on stdout and notes on
// stderr; a controller job's log takes both.
#pragma once

#include <functional>
#include <string>

namespace hetscale {

enum class LineKind { note, result };

/// Takes one line said by a library call and its kind.
using Say = std::function<void(LineKind kind, const std::string& line)>;

}  // namespace hetscale
