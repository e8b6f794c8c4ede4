#include "nsq/message.h"

#include "nsq/endian.h"
#include "nsq/error.h"
#include "nsq/frame.h"

namespace nsq {
namespace {

void write_header(char* p, const MessageHeader& h) noexcept {
  put_u64be(p, static_cast<uint64_t>(h.timestamp_ns));
  put_u16be(p + 8, h.attempts);
  to_string_view(h.id).copy(p + 10, h.id.size());
}

}  // namespace

// Headers are built on the stack and appended after one reserve(): resize()
// would zero-fill the body region only to overwrite it.
void append_message(std::string& out, const MessageHeader& header, std::string_view body) {
  char h[kMessageHeaderSize];
  write_header(h, header);
  out.reserve(out.size() + sizeof h + body.size());
  out.append(h, sizeof h);
  out.append(body);
}

void append_message_frame(std::string& out, const MessageHeader& header, std::string_view body) {
  char h[kFrameHeaderSize + kMessageHeaderSize];
  put_u32be(h, static_cast<uint32_t>(4 + kMessageHeaderSize + body.size()));
  put_u32be(h + 4, static_cast<uint32_t>(FrameType::message));
  write_header(h + kFrameHeaderSize, header);
  out.reserve(out.size() + sizeof h + body.size());
  out.append(h, sizeof h);
  out.append(body);
}

Result<DecodedMessage> decode_message(std::string_view data) {
  if (data.size() < kMessageHeaderSize)
    return tl::unexpected(make_error_code(errc::invalid_message));
  DecodedMessage m;
  m.header.timestamp_ns = get_i64be(data.data());
  m.header.attempts = get_u16be(data.data() + 8);
  data.copy(m.header.id.data(), m.header.id.size(), 10);
  m.body = data.substr(kMessageHeaderSize);
  return m;
}

std::optional<MessageId> to_message_id(std::string_view s) noexcept {
  MessageId id;
  if (s.size() != id.size()) return std::nullopt;
  s.copy(id.data(), id.size());
  return id;
}

}  // namespace nsq
