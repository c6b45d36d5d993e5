// A study's token: 8 lowercase hexadecimal digits drawn at random when a study begins
// (`hetscale study run`, or the first round `hetscale jobgen` writes), kept in every round's
// plan file and in the study's state, and part of every array job name of the study
// (jobgen::array_job_name). Two studies of one experiment by one user thus have jobs of
// different names, and each study's status and resubmission see only their own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hetscale {

inline constexpr std::size_t study_token_length = 8;

/// A fresh token from the system's random source.
std::string new_study_token();

/// Whether `text` is a token: exactly 8 characters, each 0-9 or a-f.
bool is_study_token(std::string_view text);

}  // namespace hetscale
