#pragma once

#include <optional>
#include <string>
#include <string_view>

// Standard base64 (RFC 4648 section 4, '=' padding), as Go's
// base64.StdEncoding: HTTP basic auth, and keys and values in etcd's JSON API.
namespace nsq::base64 {

std::string encode(std::string_view bytes);

// nullopt for a character outside the alphabet, a length that is not a
// multiple of 4, misplaced padding, or set bits after the last byte (the
// text encode() would not write).
std::optional<std::string> decode(std::string_view text);

}  // namespace nsq::base64
