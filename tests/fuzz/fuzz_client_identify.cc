// The C++ client reading nsqd's answer to IDENTIFY (parse_identify_reply,
// split from client/connection.cc): what a hostile or broken nsqd can send
// before anything else is negotiated. Never crashes; "OK" negotiates
// nothing; an accepted JSON answer is an object; a refused one is quoted
// whole in the error; a negotiated upgrade was named in the answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "identify_reply.h"

namespace {

// RapidJSON (kParseDefaultFlags) reads an object here: after whitespace,
// which may follow any of the UTF-8 BOM's three bytes (its memory stream
// skips each of them on its own when they come in order).
bool opens_object(std::string_view s) {
  for (unsigned char b : {0xEF, 0xBB, 0xBF}) {
    if (!s.empty() && static_cast<unsigned char>(s[0]) == b) s.remove_prefix(1);
  }
  std::size_t first = s.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && s[first] == '{';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto reply = nsq::client::parse_identify_reply(input);
  if (!reply) {
    if (!reply.error().starts_with("IDENTIFY: bad response ") || !reply.error().ends_with(input))
      std::abort();
    return 0;
  }
  if (input == "OK") {
    if (reply->max_rdy_count || reply->msg_timeout_ms || reply->auth_required || reply->tls_v1 ||
        reply->deflate || reply->snappy)
      std::abort();
    return 0;
  }
  if (!opens_object(input)) std::abort();
  if ((reply->tls_v1 && input.find("tls_v1") == std::string_view::npos) ||
      (reply->deflate && input.find("deflate") == std::string_view::npos) ||
      (reply->snappy && input.find("snappy") == std::string_view::npos) ||
      (reply->max_rdy_count && input.find("max_rdy_count") == std::string_view::npos))
    std::abort();
  return 0;
}
