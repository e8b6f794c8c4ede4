#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

// nsqd.dat: the topology Go nsqd writes, compact JSON in this key order:
// {"topics":[{"name":"t","paused":false,"channels":[{"name":"c","paused":true}]}],"version":"1.3.0"}
// with null for an empty list.
namespace nsq::nsqd::metadata {

struct ChannelEntry {
  std::string name;
  bool paused = false;
  std::string settings{};  // ours: a JSON object written as "settings" (Go ignores it); "" = none
};
struct TopicEntry {
  std::string name;
  bool paused = false;
  std::vector<ChannelEntry> channels;
  std::string settings{};  // as ChannelEntry's
};
struct Topology {
  std::vector<TopicEntry> topics;
  std::string version = "1.3.0";
};

std::string encode(const Topology& topology);
// Go's reading of the file: names, paused flags (not our settings).
tl::expected<Topology, std::string> decode(std::string_view json);

// Our "settings" objects, read from a file decode() accepted: one per topic
// (channel "") or channel that has one, as JSON text. What is not an object
// is skipped.
struct StoredSettings {
  std::string topic;
  std::string channel;
  std::string json;
};
std::vector<StoredSettings> decode_settings(std::string_view json);

}  // namespace nsq::nsqd::metadata
