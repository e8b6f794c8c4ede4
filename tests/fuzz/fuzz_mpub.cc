// MPUB body parser: never reads out of bounds, honours the limits, and an
// accepted body re-encodes to its consumed prefix.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "nsq/mpub.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  nsq::MpubLimits limits;
  limits.max_msg_size = 256;
  limits.max_body_size = 4096;
  const auto parsed = nsq::parse_mpub_body(body, limits);
  if (!parsed) {
    const auto& e = parsed.error();
    if ((e.code != "E_BAD_BODY" && e.code != "E_BAD_MESSAGE") || !e.fatal) std::abort();
    return 0;
  }
  if (parsed->empty() || parsed->size() > static_cast<size_t>((limits.max_body_size - 4) / 5)) {
    std::abort();
  }
  for (std::string_view m : *parsed) {
    if (m.empty() || m.size() > static_cast<size_t>(limits.max_msg_size)) std::abort();
    if (m.data() < body.data() || m.data() + m.size() > body.data() + body.size()) std::abort();
  }
  std::string reencoded;
  nsq::append_mpub_body(reencoded, *parsed);
  if (body.substr(0, reencoded.size()) != reencoded) std::abort();
  return 0;
}
