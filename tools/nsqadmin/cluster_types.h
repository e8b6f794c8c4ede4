#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/stats/model.h"

// The cluster as nsqadmin shows it: nsqd nodes (producers, as nsqlookupd
// calls them) and topic/channel/client stats read from each nsqd's /stats
// (the shared model, nsq/stats/model.h), summed over nodes. Field names
// follow Go's clusterinfo types, whose JSON nsqadmin's API returns. Plain
// values, no locking.
namespace nsq::admin {

struct ProducerTopic {
  std::string topic;
  bool tombstoned = false;
};

struct Producer {
  // "<lookupd>/<remote address>" for each lookupd that knows this node.
  std::vector<std::string> remote_addresses;
  std::string remote_address;  // the node's connection as lookupd saw it
  std::string hostname;
  std::string broadcast_address;
  int tcp_port = 0;
  int http_port = 0;
  std::string version;
  std::string topology_zone;  // Go master: when the node has one
  std::string topology_region;
  std::vector<ProducerTopic> topics;
  bool out_of_date = false;  // older version than the newest node

  // broadcast_address:http_port ([v6]:port): the node's name in nsqadmin.
  std::string http_address() const;
  std::string tcp_address() const;
};

// End-to-end processing latency quantiles (nsqd --e2e-processing-latency-*),
// Go's E2eProcessingLatencyAggregate: per node as nsqd reports it, then
// summed over nodes (count added, min/max kept, average weighted by count).
struct LatencyPercentile {
  double quantile = 0;
  double value = 0;  // per node only (has_value)
  bool has_value = false;
  double min = 0;
  double max = 0;
  double average = 0;
  double count = 0;
};

struct LatencyAggregate {
  std::int64_t count = 0;
  std::vector<LatencyPercentile> percentiles;
  std::string topic;
  std::string channel;
  std::string host;

  void add(const LatencyAggregate& other);
};

// A client as nsqd reports it, with the node it is connected to.
struct ClientStats : stats::Client {
  std::string node;
  std::int64_t connected = 0;  // nanoseconds since connect_ts (Go's time.Duration)
};

// One node's channel, or (node "*") its sum over the nodes of the topic.
struct ChannelStats : stats::ChannelCounts {
  std::string node;  // "*" once summed over nodes
  std::string hostname;
  std::string topic_name;
  std::string channel_name;
  std::vector<ChannelStats> node_stats;  // one per node, when summed
  std::vector<ClientStats> clients;
  bool paused = false;
  LatencyAggregate e2e_processing_latency;
  // nsq-cpp settings as a node reports them; summed, the first node's that has any.
  std::int64_t max_attempts = 0;
  std::string dead_letter_topic;
  std::string message_ttl;
  std::int64_t max_depth = 0;
  std::string depth_policy;

  // Go's ChannelStats.Add: sums a's counters into this (node becomes "*"),
  // keeps a as one of node_stats and takes its clients.
  void add(const ChannelStats& a);
};

struct TopicStats {
  std::string node;  // "*" once summed over nodes
  std::string hostname;
  std::string topic_name;
  std::int64_t start_time = 0;
  std::int64_t depth = 0;
  std::int64_t memory_depth = 0;
  std::int64_t backend_depth = 0;
  std::int64_t message_count = 0;
  // Topology-aware consumption (Go master): deliveries by consumer locality.
  std::uint64_t zone_local_msg_count = 0;
  std::uint64_t region_local_msg_count = 0;
  std::uint64_t global_msg_count = 0;
  std::vector<TopicStats> node_stats;
  std::vector<ChannelStats> channels;
  bool paused = false;
  LatencyAggregate e2e_processing_latency;
  // Cluster mode (nsq-cpp, docs/replication.md): as the node reports it;
  // summed, the leader's (it alone knows the followers' lag).
  std::optional<stats::Replication> replication;

  // Go's TopicStats.Add: sums a's counters and its channels (by name) into
  // this; the replication of the leader among them.
  void add(const TopicStats& a);
};

// Sort orders of Go's nsqadmin: by hostname, then (ours, for a stable page
// when several nodes share a host) by node address.
void sort_by_host(std::vector<Producer>& producers);
void sort_by_host(std::vector<TopicStats>& topics);
void sort_by_host(std::vector<ChannelStats>& channels);
void sort_by_host(std::vector<ClientStats>& clients);

// Parsers of the upstream JSON answers; the error names what was wrong.
// nsqlookupd /nodes and /lookup: the "producers" array (topics and their
// tombstones only in /nodes).
tl::expected<std::vector<Producer>, std::string> parse_lookupd_producers(const std::string& body);
// nsqlookupd /topics ("topics") or /channels ("channels"): a string array.
tl::expected<std::vector<std::string>, std::string> parse_string_array(const std::string& body,
                                                                       const char* key);
// nsqd /info: version, broadcast_address, hostname, tcp_port, http_port.
tl::expected<Producer, std::string> parse_nsqd_info(const std::string& body);
// nsqd /stats?format=json (parse_stats_json): its topics with channels and
// clients. `now_s` (Unix seconds) gives each client's `connected` duration.
// `draining`, when given, is set to whether the nsqd drains (nsq-cpp).
tl::expected<std::vector<TopicStats>, std::string> parse_nsqd_stats(const std::string& body,
                                                                    std::int64_t now_s,
                                                                    bool* draining = nullptr);

// Numeric dotted-version order ("1.10.0" > "1.3.0"); a bad part counts as 0.
bool version_less(const std::string& a, const std::string& b);

// Go's net.JoinHostPort.
std::string join_host_port(const std::string& host, int port);

}  // namespace nsq::admin
