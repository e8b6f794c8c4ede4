#include "nsq/mpub.h"

#include <algorithm>
#include <string>
#include <utility>

#include "nsq/endian.h"

namespace nsq {
namespace {

ProtocolError bad_body(std::string text) { return {"E_BAD_BODY", std::move(text), true}; }
ProtocolError bad_message(std::string text) { return {"E_BAD_MESSAGE", std::move(text), true}; }

}  // namespace

ProtocolResult<std::vector<std::string_view>> parse_mpub_body(std::string_view body,
                                                              const MpubLimits& limits) {
  if (body.size() < 4) return tl::unexpected(bad_body("MPUB failed to read message count"));
  const int32_t count = get_i32be(body.data());
  body.remove_prefix(4);
  // Each message takes at least 5 bytes (size + one byte), after the 4-byte count.
  const int64_t max_count = (limits.max_body_size - 4) / 5;
  if (count <= 0 || count > max_count) {
    return tl::unexpected(bad_body("MPUB invalid message count " + std::to_string(count)));
  }
  std::vector<std::string_view> messages;
  // The count is client-controlled: bound the reservation by what the bytes can hold.
  messages.reserve(std::min<std::size_t>(static_cast<std::size_t>(count), body.size() / 5));
  for (int32_t i = 0; i < count; ++i) {
    if (body.size() < 4) {
      return tl::unexpected(
          bad_message("MPUB failed to read message(" + std::to_string(i) + ") body size"));
    }
    const int32_t size = get_i32be(body.data());
    body.remove_prefix(4);
    if (size <= 0) {
      return tl::unexpected(bad_message("MPUB invalid message(" + std::to_string(i) +
                                        ") body size " + std::to_string(size)));
    }
    if (size > limits.max_msg_size) {
      return tl::unexpected(bad_message("MPUB message too big " + std::to_string(size) + " > " +
                                        std::to_string(limits.max_msg_size)));
    }
    if (body.size() < static_cast<std::size_t>(size)) {
      return tl::unexpected(bad_message("MPUB failed to read message body"));
    }
    messages.push_back(body.substr(0, static_cast<std::size_t>(size)));
    body.remove_prefix(static_cast<std::size_t>(size));
  }
  return messages;
}

void append_mpub_body(std::string& out, const std::vector<std::string_view>& messages) {
  append_u32be(out, static_cast<uint32_t>(messages.size()));
  for (std::string_view m : messages) {
    append_u32be(out, static_cast<uint32_t>(m.size()));
    out.append(m);
  }
}

}  // namespace nsq
