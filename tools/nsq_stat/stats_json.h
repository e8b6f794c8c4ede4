#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/stats/model.h"

// Decoding of the JSON nsq_stat reads: nsqd /stats (through the shared
// model, nsq/stats/json.h) and /info, nsqlookupd /lookup (spec/http-api.md,
// spec/lookupd.md). Errors are texts for the user's fatal line.
namespace nsq::stat {

// An nsqd that has the topic: where its HTTP API is.
struct Producer {
  std::string broadcast_address;
  int http_port = 0;

  // Go's net.JoinHostPort(broadcast_address, http_port): brackets for IPv6.
  std::string http_address() const;
  bool operator==(const Producer&) const = default;
};

// Channels of `topic` in an nsqd /stats?format=json body, by channel name
// (a name listed twice is summed). A topic absent from the body gives an
// empty map.
tl::expected<std::map<std::string, stats::ChannelCounts>, std::string> parse_topic_channel_stats(
    std::string_view body, std::string_view topic);

// Whether an nsqd /stats?format=json body lists `topic`.
tl::expected<bool, std::string> stats_has_topic(std::string_view body, std::string_view topic);

// The producers of an nsqlookupd /lookup body.
tl::expected<std::vector<Producer>, std::string> parse_lookup_producers(std::string_view body);

// The nsqd itself, from its /info body.
tl::expected<Producer, std::string> parse_info_producer(std::string_view body);

}  // namespace nsq::stat
