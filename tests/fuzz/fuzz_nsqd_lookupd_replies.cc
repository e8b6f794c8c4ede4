// What nsqd reads from nsqlookupd (lookupd_parse.cc, split from
// lookup_client.cc): the IDENTIFY answer (first byte even) and the body of
// GET /channels (odd). Never crashes; "E_INVALID" and non-objects are
// refused; an accepted HTTP port is a TCP port or 0 (unknown); channel names
// come only from an object's array.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lookup/lookupd_parse.h"

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
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool object = opens_object(input);
  if (data[0] % 2 == 0) {
    auto info = nsq::nsqd::parse_lookupd_identify(input);
    if (!info) return 0;
    if (!object || input == "E_INVALID") std::abort();
    if (info->http_port < 0 || info->http_port > 65535) std::abort();
    if (info->broadcast_address.size() > input.size()) std::abort();
  } else {
    auto names = nsq::nsqd::parse_lookupd_channels(input);
    if (names.empty()) return 0;
    if (!object || input.find("channels") == std::string_view::npos) std::abort();
    std::size_t total = 0;
    for (const auto& n : names) total += n.size();
    if (total > input.size()) std::abort();
  }
  return 0;
}
