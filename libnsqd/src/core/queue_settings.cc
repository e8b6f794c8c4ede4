#include "core/queue_settings.h"

#include <rapidjson/document.h>

#include "nsq/flags/go_duration.h"
#include "nsq/json/writer.h"
#include "nsq/names.h"

namespace nsq::nsqd {

std::string settings_json(const QueueSettings& s, SettingsScope scope) {
  std::string out = "{";
  if (scope == SettingsScope::channel) {
    out += "\"max_attempts\":" + std::to_string(s.max_attempts);
    out += ",\"dead_letter_topic\":" + json::quote(s.dead_letter_topic) + ",";
  }
  out += "\"message_ttl\":" + json::quote(flags::format_go_duration(s.message_ttl));
  out += ",\"max_depth\":" + std::to_string(s.max_depth);
  out += ",\"depth_policy\":";
  out += json::quote(depth_policy_name(s.depth_policy));
  return out + "}";
}

namespace {

using Result = tl::expected<QueueSettings, std::string>;

tl::unexpected<std::string> bad(std::string_view field, std::string_view why) {
  return tl::unexpected(std::string(field) + ": " + std::string(why));
}

// A JSON integer (no fraction, no exponent) within [0, max].
bool whole_in_range(const rapidjson::Value& v, std::int64_t max, std::int64_t& out) {
  if (v.IsInt64()) {
    out = v.GetInt64();
  } else if (v.IsUint64()) {
    return false;  // beyond int64
  } else {
    return false;
  }
  return out >= 0 && out <= max;
}

}  // namespace

Result apply_settings_json(QueueSettings s, std::string_view json, SettingsScope scope) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return tl::unexpected(std::string("the body must be a JSON object"));
  }
  for (const auto& m : doc.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    const rapidjson::Value& v = m.value;
    const bool channel_only = key == "max_attempts" || key == "dead_letter_topic";
    if (channel_only && scope == SettingsScope::topic) return bad(key, "a channel setting");
    if (key == "max_attempts") {
      if (!whole_in_range(v, QueueSettings::kMaxAttempts, s.max_attempts)) {
        return bad(key, "must be an integer in 0..65535");
      }
    } else if (key == "dead_letter_topic") {
      if (!v.IsString()) return bad(key, "must be a string");
      std::string name(v.GetString(), v.GetStringLength());
      if (!name.empty() && !is_valid_topic_name(name)) return bad(key, "not a valid topic name");
      s.dead_letter_topic = std::move(name);
    } else if (key == "message_ttl") {
      std::chrono::nanoseconds ttl{0};
      if (v.IsString()) {
        auto d = flags::parse_go_duration(std::string_view(v.GetString(), v.GetStringLength()));
        if (!d) return bad(key, "not a duration (e.g. \"10m\")");
        ttl = *d;
      } else {
        std::int64_t ms = 0;
        if (!whole_in_range(v, QueueSettings::kMaxTtl.count(), ms)) {
          return bad(key, "must be a duration string or milliseconds, 0..87600h");
        }
        ttl = std::chrono::milliseconds(ms);
      }
      if (ttl.count() < 0 || ttl > QueueSettings::kMaxTtl) return bad(key, "must be in 0..87600h");
      s.message_ttl = std::chrono::duration_cast<std::chrono::milliseconds>(ttl);
      if (ttl.count() > 0 && s.message_ttl.count() == 0) return bad(key, "under a millisecond");
    } else if (key == "max_depth") {
      if (!whole_in_range(v, QueueSettings::kMaxDepth, s.max_depth)) {
        return bad(key, "must be an integer in 0..2^40");
      }
    } else if (key == "depth_policy") {
      const std::string_view p =
          v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
      if (p == "reject") {
        s.depth_policy = DepthPolicy::reject;
      } else if (p == "drop_oldest") {
        s.depth_policy = DepthPolicy::drop_oldest;
      } else {
        return bad(key, "must be reject or drop_oldest");
      }
    } else {
      return bad(key, "unknown setting");
    }
  }
  return s;
}

}  // namespace nsq::nsqd
