// SHA-256 (FIPS 180-4), for the runs' natural key: the collector computes the key of a
// record before loading it, PostgreSQL's sha256() gives the same bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hetscale::collector {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);

/// Lower-case hexadecimal, 64 characters.
std::string to_hex(const Sha256Digest& digest);

}  // namespace hetscale::collector
