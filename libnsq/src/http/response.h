#pragma once

// Response serialization (no Asio/Beast): the server writes head then body.

#include <ctime>
#include <string>
#include <string_view>

#include "nsq/http/message.h"

namespace nsq::http::detail {

// "Mon, 02 Jan 2006 15:04:05 GMT" (RFC 7231 IMF-fixdate, as Go's Date header).
std::string http_date(std::time_t t);

// The extra headers ask to close the connection ("Connection: close").
bool response_wants_close(const Response& r);

// Whether a response with this status carries a body (not 1xx, 204, 304).
bool status_has_body(int status);

// Status line and headers, ending with the blank line. Adds Content-Type (if
// set), Content-Length (r.body.size(), also for HEAD), Date, and
// "Connection: close" if close, else "Connection: keep-alive" for HTTP/1.0.
// version is the request's (10 or 11): Go answers in the request's version.
std::string response_head(const Response& r, int version, bool close, std::string_view date);

// A plain-text error the server sends itself ("400 Bad Request").
Response plain_error(int status);

}  // namespace nsq::http::detail
