#pragma once

#include <cstddef>
#include <string>
#include <string_view>

// UTF-8 as Go reads it (unicode/utf8.DecodeRuneInString): no overlong
// forms, no surrogates, nothing above U+10FFFF, and a byte that starts no
// valid sequence is one error on its own (the next byte is looked at afresh).
namespace nsq::utf8 {

// The length (1-4) of the valid sequence starting at s[i], or 0 when the
// byte there starts none. Requires i < s.size().
std::size_t sequence_length(std::string_view s, std::size_t i) noexcept;

// Whether every byte of s belongs to a valid sequence.
bool valid(std::string_view s) noexcept;

// s with each byte that starts no valid sequence replaced by U+FFFD: the
// string Go's encoding/json stores when it decodes one.
std::string sanitize(std::string_view s);

}  // namespace nsq::utf8
