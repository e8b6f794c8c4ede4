#pragma once

#include <string>
#include <string_view>

namespace nsq::detail {

// s with every byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD, as Go's encoding/json does when it decodes a string.
std::string sanitize_utf8(std::string_view s);

}  // namespace nsq::detail
