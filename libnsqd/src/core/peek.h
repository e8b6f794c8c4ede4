#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/message.h"

// Peek and inspect (issue 21; docs/operations.md): copies of queued,
// in-flight or deferred messages, taken without consuming or reordering.
namespace nsq::nsqd {

enum class PeekState { queued, in_flight, deferred };

struct PeekedMessage {
  MessageId id{};
  std::int64_t timestamp = 0;  // Unix ns, as published
  std::uint16_t attempts = 0;
  std::string body;
  std::optional<std::int64_t> due;  // Unix ns: when in flight times out / deferred is due
};

// At most this many per call: the work a peek may do is bounded.
inline constexpr std::size_t kMaxPeek = 1000;

// {"messages":[{"id":"..","timestamp":ns,"attempts":n,"body":"<base64>"[,"due":ns]}]}
std::string peek_json(const std::vector<PeekedMessage>& messages);

}  // namespace nsq::nsqd
