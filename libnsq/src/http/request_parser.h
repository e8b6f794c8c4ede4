#pragma once

// Sans-I/O HTTP/1.x request parsing: bytes in, Request out. The server's
// connections and the fuzzer (tests/fuzz/fuzz_http_request.cc) share it.
// Beast stays in request_parser.cc.

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "nsq/http/message.h"

namespace nsq::http::detail {

struct ParserLimits {
  std::size_t max_header_size = 64 * 1024;
  std::size_t max_body_size = 5 * 1024 * 1024;
};

// Parses one request; make a new one for the next request on a connection.
// Checks beyond Beast's grammar, as Go's net/http: HTTP/1.x only (505), a
// request-target Go accepts, exactly one Host for HTTP/1.1, Expect only
// "100-continue" (417).
class RequestParser {
 public:
  enum class Status { need_more, done, error };
  struct Step {
    std::size_t consumed = 0;  // bytes of the input that belong to this request so far
    Status status = Status::need_more;
  };

  explicit RequestParser(const ParserLimits& limits);
  ~RequestParser();
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Offers the bytes after those consumed so far. Unconsumed bytes must be
  // offered again together with the next ones (a partial header is not copied
  // here). After done, the unconsumed rest is the next request (pipelining).
  // Not to be called after done or error.
  Step put(std::string_view bytes);

  // Header complete, "Expect: 100-continue" on HTTP/1.1 and a body to come: the
  // server should send "100 Continue" before reading on.
  bool expects_continue() const;
  // After error: the status to answer with before closing (400, 417, 431, 505).
  int error_status() const;
  // The header is complete and says Transfer-Encoding: chunked.
  bool chunked() const;
  // After done: the request (remote_address left empty). Once.
  Request take_request();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One request from the front of `bytes` in a single put (tests, fuzzing).
struct ParseResult {
  RequestParser::Status status = RequestParser::Status::need_more;
  std::size_t consumed = 0;
  std::optional<Request> request;  // when done
  int error_status = 0;            // when error
};
ParseResult parse_request(std::string_view bytes, const ParserLimits& limits);

}  // namespace nsq::http::detail
