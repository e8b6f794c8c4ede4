#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nsq/http/client.h"

// The HTTP client's response reading without I/O, so it can be fuzzed: the
// bytes received so far (and whether the server closed) decide whether a
// response is complete. Whatever answers the client is outside input.
namespace nsq::http::detail {

// A decimal or hex number with optional surrounding blanks; nullopt if it is
// anything else or does not fit 64 bits.
std::optional<std::uint64_t> parse_number(std::string_view s, int base);

struct ReadStep {
  enum class Status { need_more, done, error };
  Status status = Status::need_more;
  ClientResponse response;  // done
  std::string error;        // error: Go-like text naming `where`
};

// Reads one response from `raw`, everything received so far; `eof`: the
// server has closed. Content-Length, chunked or close-delimited bodies; no
// body for HEAD, 1xx, 204, 304. A declared or received size beyond
// max_body (plus 64 KiB of head and framing) is an error. Never need_more
// once eof is set.
ReadStep read_response(std::string_view raw, bool eof, bool head_request, std::size_t max_body,
                       const std::string& where);

}  // namespace nsq::http::detail
