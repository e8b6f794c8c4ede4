// HTTP request parser (libnsq/src/http/request_parser.cc), as the server's
// connections drive it: the stream is fed in pieces (the first input byte picks
// the piece size), pipelined requests are parsed until an error or the end.
// Checks: never reads out of bounds, consumes only what it is given, honours
// the limits, and gives the same requests whether fed whole or in pieces.
// Run: build-fuzz/tests/fuzz/fuzz_http_request tests/fuzz/corpus/fuzz_http_request
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/request_parser.h"

namespace {

using nsq::http::Request;
using nsq::http::detail::ParserLimits;
using nsq::http::detail::RequestParser;

struct Outcome {
  std::vector<Request> requests;
  RequestParser::Status last = RequestParser::Status::need_more;
  int error_status = 0;
  bool ended_in_chunked_body = false;  // the run stopped inside a chunked request
};

Outcome run(std::string_view stream, std::size_t piece, const ParserLimits& limits) {
  Outcome out;
  std::string pending;
  std::size_t offset = 0;
  auto current = std::make_unique<RequestParser>(limits);
  struct MarkEnd {
    Outcome& out;
    std::unique_ptr<RequestParser>& parser;
    ~MarkEnd() { out.ended_in_chunked_body = parser->chunked(); }
  } mark_end{out, current};
  for (;;) {
    auto step = current->put(pending);
    if (step.consumed > pending.size()) std::abort();
    pending.erase(0, step.consumed);
    out.last = step.status;
    if (step.status == RequestParser::Status::error) {
      out.error_status = current->error_status();
      int s = out.error_status;
      if (s != 400 && s != 417 && s != 431 && s != 501 && s != 505) std::abort();
      return out;
    }
    if (step.status == RequestParser::Status::done) {
      Request r = current->take_request();
      if (r.body.size() > limits.max_body_size) std::abort();
      if (r.body_too_big && !r.body.empty()) std::abort();
      if (r.path.empty() || (r.version != 10 && r.version != 11)) std::abort();
      bool stop = r.body_too_big;  // the server closes the connection here
      out.requests.push_back(std::move(r));
      if (stop) return out;
      current = std::make_unique<RequestParser>(limits);
      continue;
    }
    if (offset == stream.size()) return out;
    std::size_t n = std::min(piece, stream.size() - offset);
    pending.append(stream.substr(offset, n));
    offset += n;
  }
}

bool same(const Request& a, const Request& b) {
  return a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query &&
         a.bad_query == b.bad_query && a.headers == b.headers && a.body == b.body &&
         a.body_too_big == b.body_too_big && a.version == b.version && a.keep_alive == b.keep_alive;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  ParserLimits limits;
  limits.max_header_size = 1024;
  limits.max_body_size = 512;
  Outcome pieces = run(stream, piece, limits);
  Outcome whole = run(stream, stream.size() + 1, limits);
  // A header that is both malformed and too long may be refused as either
  // (400 or 431), depending on which the bytes at hand showed first.
  // Otherwise both runs agree.
  const bool too_long = pieces.error_status == 431 || whole.error_status == 431;
  // Beast (1.74) parses a chunk header's extensions up to the end of the bytes
  // it was given rather than the end of the line, so a malformed extension (a
  // quoted string running over the CRLF) may be refused, taken as a huge chunk
  // (body too big) or left waiting for more, depending on where the pieces
  // end. Every outcome is safe; only the requests before that one must agree.
  const bool chunk_quirk = pieces.ended_in_chunked_body || whole.ended_in_chunked_body;
  auto agreed = [](const Outcome& o) {
    // A run that stopped at a chunked body too big has that request last.
    const bool last_is_it =
        o.ended_in_chunked_body && !o.requests.empty() && o.requests.back().body_too_big;
    return o.requests.size() - (last_is_it ? 1 : 0);
  };
  if (!too_long && !chunk_quirk && pieces.requests.size() != whole.requests.size()) std::abort();
  for (std::size_t i = 0; i < std::min(agreed(whole), agreed(pieces)); ++i) {
    if (!same(pieces.requests[i], whole.requests[i])) std::abort();
  }
  const bool decided = pieces.last != RequestParser::Status::need_more &&
                       whole.last != RequestParser::Status::need_more;
  if (decided && !too_long && !chunk_quirk &&
      (pieces.last != whole.last || pieces.error_status != whole.error_status)) {
    std::abort();
  }
  return 0;
}
