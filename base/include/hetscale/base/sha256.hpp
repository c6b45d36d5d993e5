// SHA-256 (FIPS 180-4). The collector keys runs by it (PostgreSQL's sha256() gives the
// same bytes) and the twin identifies a SimGrid platform by the hash of its text.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hetscale {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);

/// Lower-case hexadecimal, 64 characters.
std::string to_hex(const Sha256Digest& digest);

}  // namespace hetscale
