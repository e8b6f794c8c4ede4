#include "stats_json.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "nsq/stats/json.h"

namespace nsq::stat {
namespace {

using Value = rapidjson::Value;

tl::expected<rapidjson::Document, std::string> parse_object(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    return tl::unexpected(std::string("invalid JSON: ") +
                          rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject()) return tl::unexpected(std::string("invalid JSON: not an object"));
  return doc;
}

int64_t int_field(const Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsInt64()) return 0;
  return it->value.GetInt64();
}

std::string_view string_field(const Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

}  // namespace

std::string Producer::http_address() const {
  std::string host = broadcast_address;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return host + ":" + std::to_string(http_port);
}

tl::expected<std::map<std::string, stats::ChannelCounts>, std::string> parse_topic_channel_stats(
    std::string_view body, std::string_view topic) {
  auto doc = stats::parse_stats_json(body);
  if (!doc) return tl::unexpected(doc.error());
  std::map<std::string, stats::ChannelCounts> out;
  const stats::Topic* t = stats::find_topic(*doc, topic);
  if (t == nullptr) return out;
  for (const auto& c : t->channels) out[c.name].add(c);
  return out;
}

tl::expected<bool, std::string> stats_has_topic(std::string_view body, std::string_view topic) {
  auto doc = stats::parse_stats_json(body);
  if (!doc) return tl::unexpected(doc.error());
  return stats::find_topic(*doc, topic) != nullptr;
}

tl::expected<std::vector<Producer>, std::string> parse_lookup_producers(std::string_view body) {
  auto doc = parse_object(body);
  if (!doc) return tl::unexpected(doc.error());
  std::vector<Producer> out;
  auto producers = doc->FindMember("producers");
  if (producers == doc->MemberEnd() || !producers->value.IsArray()) return out;
  for (const auto& p : producers->value.GetArray()) {
    if (!p.IsObject()) continue;
    out.push_back(Producer{std::string(string_field(p, "broadcast_address")),
                           static_cast<int>(int_field(p, "http_port"))});
  }
  return out;
}

tl::expected<Producer, std::string> parse_info_producer(std::string_view body) {
  auto doc = parse_object(body);
  if (!doc) return tl::unexpected(doc.error());
  return Producer{std::string(string_field(*doc, "broadcast_address")),
                  static_cast<int>(int_field(*doc, "http_port"))};
}

}  // namespace nsq::stat
