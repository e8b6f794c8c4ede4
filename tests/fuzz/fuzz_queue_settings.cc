// The settings API's JSON body (apply_settings_json), from any HTTP client,
// and the "settings" objects in nsqd.dat (metadata::decode_settings).
// Invariants: an error names a reason and changes nothing; accepted settings
// are in range, and their own JSON reads back to the same settings.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/metadata.h"
#include "core/queue_settings.h"

namespace nsqd = nsq::nsqd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto scope = (data[0] & 1) ? nsqd::SettingsScope::channel : nsqd::SettingsScope::topic;
  const std::string_view json(reinterpret_cast<const char*>(data + 1), size - 1);
  nsqd::QueueSettings base;
  base.max_attempts = scope == nsqd::SettingsScope::channel ? 7 : 0;
  auto s = nsqd::apply_settings_json(base, json, scope);
  if (!s) {
    if (s.error().empty()) std::abort();
  } else {
    if (s->max_attempts < 0 || s->max_attempts > nsqd::QueueSettings::kMaxAttempts) std::abort();
    if (s->message_ttl.count() < 0 || s->message_ttl > nsqd::QueueSettings::kMaxTtl) std::abort();
    if (scope == nsqd::SettingsScope::topic &&
        (s->max_attempts != 0 || !s->dead_letter_topic.empty())) {
      std::abort();
    }
    auto again =
        nsqd::apply_settings_json(nsqd::QueueSettings{}, nsqd::settings_json(*s, scope), scope);
    if (!again || !(*again == *s)) std::abort();
  }
  for (const auto& stored : nsqd::metadata::decode_settings(json)) {
    if (stored.topic.size() > json.size() || stored.json.empty() || stored.json[0] != '{') {
      std::abort();
    }
  }
  return 0;
}
