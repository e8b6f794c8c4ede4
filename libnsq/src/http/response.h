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
// "Connection: close" if close (HTTP/1.1 only, as Go), else
// "Connection: keep-alive" for HTTP/1.0. The default text/plain Content-Type
// goes only with a non-empty body (Go sniffs it from the body).
// version is the request's (10 or 11): Go answers in the request's version.
std::string response_head(const Response& r, int version, bool close, std::string_view date);

// A plain-text error the server sends itself ("400 Bad Request").
Response plain_error(int status);

// The bytes Go's net/http writes for a request it rejects before any handler
// runs, then closes: "HTTP/1.1 400 Bad Request: <reason>" with only
// Content-Type and "Connection: close" and the same words as the body; 417 as
// an empty response; 501 "Unsupported transfer encoding".
std::string go_error_bytes(int status, std::string_view reason, std::string_view date);

}  // namespace nsq::http::detail
