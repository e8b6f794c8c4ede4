#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// nsqd's statistics as its GET /stats?format=json document carries them
// (Go nsqd v1.3.0's field set): nsqd fills a Snapshot from its live objects
// and renders it (JSON, text, Prometheus, statsd); nsq_stat and nsqadmin
// parse the document back into it (nsq/stats/json.h). Plain values.
namespace nsq::stats {

struct Latency {
  std::uint64_t count = 0;
  // (quantile, value in nanoseconds), highest quantile first; empty when no
  // --e2e-processing-latency-percentile is configured (JSON "percentiles":null).
  std::vector<std::pair<double, double>> percentiles;
  bool configured = false;

  bool operator==(const Latency&) const = default;
};

struct PubCount {
  std::string topic;
  std::uint64_t count = 0;

  bool operator==(const PubCount&) const = default;
};

struct Client {
  std::string client_id;
  std::string hostname;
  std::string version = "V2";
  std::string remote_address;  // ip:port
  int state = 0;               // 0 init, 3 subscribed, 4 closing
  std::int64_t ready_count = 0;
  std::int64_t in_flight_count = 0;
  std::uint64_t message_count = 0;
  std::uint64_t finish_count = 0;
  std::uint64_t requeue_count = 0;
  std::int64_t connect_ts = 0;  // Unix seconds
  std::int64_t sample_rate = 0;
  bool deflate = false;
  bool snappy = false;
  std::string user_agent;
  bool authed = false;
  std::string auth_identity;
  std::string auth_identity_url;
  // Topology-aware consumption (Go master): where this nsqd and the client run.
  std::string node_topology_region;
  std::string node_topology_zone;
  std::string topology_region;
  std::string topology_zone;
  std::vector<PubCount> pub_counts;
  bool tls = false;
  std::string tls_cipher_suite;
  std::string tls_version;
  std::string tls_negotiated_protocol;
  bool tls_negotiated_protocol_is_mutual = false;

  bool operator==(const Client&) const = default;
};

// A channel's counters: what Go's nsq_stat and nsqadmin add up over the
// nsqd nodes that have the topic.
struct ChannelCounts {
  std::int64_t depth = 0;
  std::int64_t backend_depth = 0;
  std::int64_t in_flight_count = 0;
  std::int64_t deferred_count = 0;
  std::uint64_t message_count = 0;
  std::uint64_t requeue_count = 0;
  std::uint64_t timeout_count = 0;
  // Deliveries by where the consumer runs, with topology-aware consumption
  // (Go master's counters; 0 and left out of the JSON otherwise).
  std::uint64_t zone_local_msg_count = 0;
  std::uint64_t region_local_msg_count = 0;
  std::uint64_t global_msg_count = 0;
  // Dead letters and TTL (nsq-cpp; 0 and left out of the JSON otherwise).
  std::uint64_t expired_count = 0;
  std::uint64_t dead_letter_count = 0;
  std::uint64_t discarded_count = 0;
  std::uint64_t dropped_count = 0;  // max_depth's drop_oldest
  std::int64_t client_count = 0;

  // Messages in memory (Go's tools show depth - backend_depth as "mem").
  std::int64_t memory_depth() const { return depth - backend_depth; }
  // Adds every counter of other (Go's clusterinfo ChannelStats.Add).
  void add(const ChannelCounts& other);

  bool operator==(const ChannelCounts&) const = default;
};

struct Channel : ChannelCounts {
  std::string name;
  // Its dead-letter and TTL settings (nsq-cpp; left out when off).
  std::int64_t max_attempts = 0;
  std::string dead_letter_topic;
  std::string message_ttl;  // Go duration, e.g. "10m0s"; "" when off
  std::int64_t max_depth = 0;
  std::string depth_policy;     // "reject" or "drop_oldest" when max_depth is set
  std::vector<Client> clients;  // empty when not requested
  bool paused = false;
  Latency e2e;

  bool operator==(const Channel&) const = default;
};

// A topic's replication in cluster mode (nsq-cpp only, docs/replication.md).
struct Replication {
  std::string role;  // "leader" or "follower"
  std::int64_t epoch = 0;
  std::string leader;  // host:tcp_port; empty while no node leads
  std::vector<std::string> replicas;
  std::vector<std::string> isr;                           // in-sync replicas
  std::vector<std::pair<std::string, std::int64_t>> lag;  // per follower, in records

  bool operator==(const Replication&) const = default;
};

struct Topic {
  std::string name;
  std::vector<Channel> channels;  // sorted by name
  std::int64_t depth = 0;
  std::int64_t backend_depth = 0;
  std::uint64_t message_count = 0;
  std::uint64_t message_bytes = 0;
  std::string message_ttl;     // nsq-cpp: its TTL setting, as Channel's
  std::int64_t max_depth = 0;  // nsq-cpp: its bound, as Channel's
  std::string depth_policy;
  std::uint64_t dropped_count = 0;  // nsq-cpp: by max_depth's drop_oldest
  // The sums of its channels' (Go master).
  std::uint64_t zone_local_msg_count = 0;
  std::uint64_t region_local_msg_count = 0;
  std::uint64_t global_msg_count = 0;
  bool paused = false;
  Latency e2e;
  std::optional<Replication> replication;  // cluster mode only

  bool operator==(const Topic&) const = default;
};

// Process memory; the keys are Go's runtime names, filled with the closest
// equivalents this process has (0 where there is none).
struct Memory {
  std::int64_t heap_objects = 0;
  std::int64_t heap_idle_bytes = 0;
  std::int64_t heap_in_use_bytes = 0;
  std::int64_t heap_released_bytes = 0;
  std::int64_t gc_pause_usec_100 = 0;
  std::int64_t gc_pause_usec_99 = 0;
  std::int64_t gc_pause_usec_95 = 0;
  std::int64_t next_gc_bytes = 0;
  std::int64_t gc_total_runs = 0;

  bool operator==(const Memory&) const = default;
};

struct Snapshot {
  std::string version = "1.3.0";
  std::string health = "OK";
  bool draining = false;        // nsq-cpp: --sigterm=drain / PUT /config/drain; left out when false
  std::int64_t start_time = 0;  // Unix seconds
  std::vector<Topic> topics;    // sorted by name
  bool topics_null = false;     // a topic filter named a topic that does not exist
  std::optional<Memory> memory;  // absent when include_mem=false
  bool include_clients = true;   // false: clients and producers render as null
  // TCP connections that published at least once; rendered as JSON null when
  // empty (Go's nil slice). With a topic filter their pub_counts hold only
  // that topic (Go's client.Stats(topic)).
  std::vector<Client> producers;

  bool operator==(const Snapshot&) const = default;
};

// The topic (channel) of that name, or null.
const Topic* find_topic(const Snapshot& s, std::string_view name);
const Channel* find_channel(const Topic& t, std::string_view name);

}  // namespace nsq::stats
