#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nsq/result.h"

namespace nsq {

// 16 ASCII bytes on the wire; clients echo them back opaquely in FIN/REQ/TOUCH.
using MessageId = std::array<char, 16>;

// [int64 timestamp_ns][uint16 attempts][16-byte id] then the body. The same
// layout is the data of a type-2 frame and a disk queue record.
inline constexpr std::size_t kMessageHeaderSize = 26;

struct MessageHeader {
  int64_t timestamp_ns = 0;  // publish time, kept across requeues
  uint16_t attempts = 0;     // deliveries including the current one
  MessageId id{};

  friend bool operator==(const MessageHeader&, const MessageHeader&) = default;
};

void append_message(std::string& out, const MessageHeader& header, std::string_view body);

// Frame header + message in one append with a single allocation at most:
// the delivery hot path.
void append_message_frame(std::string& out, const MessageHeader& header, std::string_view body);

struct DecodedMessage {
  MessageHeader header;
  std::string_view body;  // points into the decoded buffer, which must outlive it
};

// errc::invalid_message when data is shorter than the header.
Result<DecodedMessage> decode_message(std::string_view data);

inline std::string_view to_string_view(const MessageId& id) noexcept {
  return {id.data(), id.size()};
}

// A FIN/REQ/TOUCH parameter as an id: nullopt unless exactly 16 bytes.
std::optional<MessageId> to_message_id(std::string_view s) noexcept;

}  // namespace nsq
