#pragma once

#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/http/message.h"

namespace nsq::tools::to_http {

// --header values "Name: value": split at the first ':', both sides
// trimmed, neither may be empty (error `Invalid header: "<text>"`). A later
// header of the same name replaces an earlier one (Go keeps them in a map).
tl::expected<http::HeaderList, std::string> parse_custom_headers(
    const std::vector<std::string>& values);

}  // namespace nsq::tools::to_http
