#pragma once

#include <string>
#include <string_view>

// JSON text as Go's encoding/json writes it.
namespace nsq::lookupd::json {

// s with every byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD (what Go's decoder stores).
std::string sanitize_utf8(std::string_view s);

// A JSON string literal: invalid UTF-8 as \ufffd, <, > and & escaped (Go's
// HTML-safe default), U+2028/U+2029 escaped.
std::string quote(std::string_view s);

}  // namespace nsq::lookupd::json
