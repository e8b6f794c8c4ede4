// The HTTP client's response reading (libnsq/src/http/response_reader.cc),
// as http::get/request drive it: the bytes arrive in pieces (the first input
// byte picks the piece size and whether the request was a HEAD), each call
// sees everything received so far, then the server closes. Whoever answers
// (auth server, nsqlookupd, an nsq_to_http target) is outside input.
// Invariants: no hang or crash; once complete, more bytes do not change the
// response (the client has stopped reading); a Content-Length body stays
// within max_body; the status has at most 3 digits; header names are lower
// case; at EOF the answer is never need_more (the client would spin).
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "http/response_reader.h"

namespace {

using nsq::http::detail::read_response;
using nsq::http::detail::ReadStep;

constexpr std::size_t kMaxBody = 256;

void check_done(const ReadStep& step, std::string_view raw) {
  const auto& r = step.response;
  if (r.status < 0 || r.status > 999) std::abort();
  if (r.body.size() > raw.size()) std::abort();
  for (const auto& [name, value] : r.headers) {
    for (char c : name) {
      if (std::tolower(static_cast<unsigned char>(c)) != static_cast<unsigned char>(c))
        std::abort();
    }
  }
  bool chunked = false, has_length = false;
  for (const auto& [name, value] : r.headers) {
    if (name == "transfer-encoding") chunked = true;
    if (name == "content-length") has_length = true;
  }
  if (has_length && !chunked && r.body.size() > kMaxBody) std::abort();
}

bool same(const ReadStep& a, const ReadStep& b) {
  return a.status == b.status && a.response.status == b.response.status &&
         a.response.headers == b.response.headers && a.response.body == b.response.body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool head_request = data[0] & 1;
  const std::size_t piece = 1 + (data[0] >> 1) % 64;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string where = "fuzz:80";
  std::size_t received = 0;
  for (;;) {
    const std::string_view raw = input.substr(0, received);
    ReadStep step = read_response(raw, false, head_request, kMaxBody, where);
    if (step.status == ReadStep::Status::error) {
      if (step.error.empty()) std::abort();
      return 0;
    }
    if (step.status == ReadStep::Status::done) {
      check_done(step, raw);
      // What follows is never read; had it been, it would change nothing.
      ReadStep all = read_response(input, true, head_request, kMaxBody, where);
      if (!same(step, all)) std::abort();
      return 0;
    }
    if (received == input.size()) break;
    received = std::min(input.size(), received + piece);
  }
  ReadStep last = read_response(input, true, head_request, kMaxBody, where);
  if (last.status == ReadStep::Status::need_more) std::abort();
  if (last.status == ReadStep::Status::done) check_done(last, input);
  return 0;
}
