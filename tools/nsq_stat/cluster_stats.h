#pragma once

#include <functional>
#include <map>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/stats/model.h"
#include "stats_json.h"

// What Go's clusterinfo does for nsq_stat: find the nsqd producing a topic
// (through nsqlookupd or by asking the given nsqd) and sum their channel
// stats. Every failing request is an error (Go returns a partial error, and
// nsq_stat treats any error as fatal); several are joined by '\n'.
namespace nsq::stat {

// GET of `target` ("/stats?...") on `address` ("host:port"): the body of a
// 200 response, else an error text. fetch_v1 in the tool, a fake in tests.
using Fetch = std::function<tl::expected<std::string, std::string>(const std::string& address,
                                                                   const std::string& target)>;

// Producers from each lookupd's /lookup?topic=, deduplicated by HTTP address.
tl::expected<std::vector<Producer>, std::string> lookupd_topic_producers(
    const Fetch& fetch, const std::string& topic, const std::vector<std::string>& lookupds);

// The given nsqd that have the topic (their /stats), each as its /info
// describes it (broadcast_address:http_port).
tl::expected<std::vector<Producer>, std::string> nsqd_topic_producers(
    const Fetch& fetch, const std::string& topic, const std::vector<std::string>& nsqds);

// /stats of each producer for topic/channel, summed per channel name.
tl::expected<std::map<std::string, stats::ChannelCounts>, std::string> producers_channel_stats(
    const Fetch& fetch, const std::vector<Producer>& producers, const std::string& topic,
    const std::string& channel);

}  // namespace nsq::stat
