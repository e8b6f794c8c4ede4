#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

// A topic's or channel's settings beyond Go nsqd's (issue 21, docs/
// operations.md "Dead letters and message TTL"): plain values, their JSON
// (the settings API's body and answer, and nsqd.dat's "settings" field, which
// Go nsqd ignores), and their checks.
namespace nsq::nsqd {

struct QueueSettings {
  static constexpr std::int64_t kMaxAttempts = 65535;  // a message's attempts are 16 bits
  static constexpr std::chrono::milliseconds kMaxTtl = std::chrono::hours(24 * 365 * 10);

  // Channel only: a message that times out or is REQ'd after this many
  // attempts leaves the channel (to dead_letter_topic if set); 0 = off.
  std::int64_t max_attempts = 0;
  // Channel only: where expired and exhausted messages go; "" = dropped.
  std::string dead_letter_topic;
  // A message older than this (by its timestamp) is not delivered; 0 = off.
  // A topic's applies to each of its channels (the shorter one wins).
  std::chrono::milliseconds message_ttl{0};

  bool is_default() const { return *this == QueueSettings{}; }
  bool operator==(const QueueSettings&) const = default;
};

enum class SettingsScope { topic, channel };

// {"max_attempts":n,"dead_letter_topic":"t","message_ttl":"1h0m0s"} (a
// topic: only "message_ttl"); message_ttl as a Go duration.
std::string settings_json(const QueueSettings& s, SettingsScope scope);

// Applies a JSON object's fields over `base`: message_ttl as a Go duration
// string or integer milliseconds. Unknown fields, the wrong type, a value
// out of range, an invalid topic name or a channel-only field for a topic
// are an error naming the field; nothing is applied then.
tl::expected<QueueSettings, std::string> apply_settings_json(QueueSettings base,
                                                             std::string_view json,
                                                             SettingsScope scope);

}  // namespace nsq::nsqd
