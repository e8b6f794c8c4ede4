#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "nsqd/options.h"

// A topic's or channel's settings beyond Go nsqd's (issue 21, docs/
// operations.md "Dead letters and message TTL"): plain values, their JSON
// (the settings API's body and answer, and nsqd.dat's "settings" field, which
// Go nsqd ignores), and their checks.
namespace nsq::nsqd {

// What a bounded topic or channel does with a message beyond max_depth.
enum class DepthPolicy : std::uint8_t {
  reject,      // the publish fails (E_PUB_FAILED, HTTP 503), nothing of an MPUB taken
  drop_oldest  // the oldest message it holds is dropped and counted
};

struct QueueSettings {
  static constexpr std::int64_t kMaxAttempts = 65535;  // a message's attempts are 16 bits
  static constexpr std::chrono::milliseconds kMaxTtl = std::chrono::hours(24 * 365 * 10);
  static constexpr std::int64_t kMaxDepth = std::int64_t{1} << 40;

  // Channel only: a message that times out or is REQ'd after this many
  // attempts leaves the channel (to dead_letter_topic if set); 0 = off.
  std::int64_t max_attempts = 0;
  // Channel only: where expired and exhausted messages go; "" = dropped.
  std::string dead_letter_topic;
  // A message older than this (by its timestamp) is not delivered; 0 = off.
  // A topic's applies to each of its channels (the shorter one wins).
  std::chrono::milliseconds message_ttl{0};
  // Messages it may hold (queued, not in flight or deferred); 0 = unbounded.
  std::int64_t max_depth = 0;
  DepthPolicy depth_policy = DepthPolicy::reject;

  bool drops_oldest() const { return max_depth > 0 && depth_policy == DepthPolicy::drop_oldest; }
  bool rejects_beyond() const { return max_depth > 0 && depth_policy == DepthPolicy::reject; }

  bool is_default() const { return *this == QueueSettings{}; }
  bool operator==(const QueueSettings&) const = default;
};

enum class SettingsScope { topic, channel };

inline const char* depth_policy_name(DepthPolicy p) {
  return p == DepthPolicy::drop_oldest ? "drop_oldest" : "reject";
}

// --default-depth-policy, checked at startup.
inline DepthPolicy default_depth_policy(const Options& o) {
  return o.default_depth_policy == "drop_oldest" ? DepthPolicy::drop_oldest : DepthPolicy::reject;
}

// {"max_attempts":n,"dead_letter_topic":"t","message_ttl":"1h0m0s",
// "max_depth":n,"depth_policy":"reject"} (a topic: no max_attempts or
// dead_letter_topic); message_ttl as a Go duration.
std::string settings_json(const QueueSettings& s, SettingsScope scope);

// Applies a JSON object's fields over `base`: message_ttl as a Go duration
// string or integer milliseconds. Unknown fields, the wrong type, a value
// out of range, an invalid topic name or a channel-only field for a topic
// are an error naming the field; nothing is applied then.
tl::expected<QueueSettings, std::string> apply_settings_json(QueueSettings base,
                                                             std::string_view json,
                                                             SettingsScope scope);

}  // namespace nsq::nsqd
