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
};
struct TopicEntry {
  std::string name;
  bool paused = false;
  std::vector<ChannelEntry> channels;
};
struct Topology {
  std::vector<TopicEntry> topics;
  std::string version = "1.3.0";
};

std::string encode(const Topology& topology);
tl::expected<Topology, std::string> decode(std::string_view json);

}  // namespace nsq::nsqd::metadata
