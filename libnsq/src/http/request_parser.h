#pragma once

// Sans-I/O HTTP/1.x request parsing: bytes in, Request out. The server's
// connections and the fuzzer (tests/fuzz/fuzz_http_request.cc) share it.
// Beast stays in request_parser.cc.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "nsq/http/message.h"

namespace nsq::http::detail {

struct ParserLimits {
  std::size_t max_header_size = 64 * 1024;
  std::size_t max_body_size = 5 * 1024 * 1024;
  // Set: called with the request's head (no body) once its header is complete;
  // a Content-Length above what it returns (or above max_body_size) makes the
  // request done at once with body_too_big, before any body byte is read.
  std::function<std::size_t(const Request&)> body_limit_for;
};

// Parses one request; make a new one for the next request on a connection.
// Checks beyond Beast's grammar, as Go's net/http: lines may end in LF alone,
// a field with an empty name is skipped, HTTP/1.x only (505), a
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
  // After done: the request asked for "100 Continue" (HTTP/1.1) and has a body
  // that was not refused; Go sends it when the handler reads the body, even
  // one that already arrived.
  bool wanted_continue() const;
  // After error: the status to answer with before closing (400, 417, 431, 501,
  // 505), and Go's reason after the status text ("missing required Host
  // header"; "" for a plain "400 Bad Request").
  int error_status() const;
  const std::string& error_reason() const;
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
  std::string error_reason;        // when error
};
ParseResult parse_request(std::string_view bytes, const ParserLimits& limits);

}  // namespace nsq::http::detail
