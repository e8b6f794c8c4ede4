#include "cluster_types.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <tuple>

#include "nsq/stats/json.h"

namespace nsq::admin {
namespace {

using Value = rapidjson::Value;

std::string str(const Value& o, const char* key) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

std::int64_t num(const Value& o, const char* key) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) return 0;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsUint64()) return static_cast<std::int64_t>(it->value.GetUint64());
  if (it->value.IsDouble()) return static_cast<std::int64_t>(it->value.GetDouble());
  return 0;
}

const Value* array(const Value& o, const char* key) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsArray()) return nullptr;
  return &it->value;
}

tl::expected<rapidjson::Document, std::string> parse(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return tl::unexpected(std::string("invalid JSON response"));
  }
  return doc;
}

// Dotted version numbers compared numerically ("1.10.0" > "1.3.0"); a part
// that is not a number counts as 0, like Go's fallback to semver 0.0.0.
std::vector<long> version_parts(const std::string& v) {
  std::vector<long> parts;
  std::size_t i = 0;
  while (i <= v.size()) {
    auto dot = v.find('.', i);
    if (dot == std::string::npos) dot = v.size();
    long n = 0;
    bool ok = dot > i;
    for (auto k = i; k < dot && ok; ++k) {
      if (v[k] < '0' || v[k] > '9') {
        ok = false;
      } else {
        n = n * 10 + (v[k] - '0');
      }
    }
    parts.push_back(ok ? n : 0);
    i = dot + 1;
  }
  return parts;
}

// nsqd's latency of one node: each quantile is its own min, max and average.
LatencyAggregate node_latency(const stats::Latency& l) {
  LatencyAggregate e;
  e.count = static_cast<std::int64_t>(l.count);
  for (const auto& [quantile, value] : l.percentiles) {
    LatencyPercentile q;
    q.quantile = quantile;
    q.value = value;
    q.has_value = true;
    q.min = q.max = q.average = value;
    q.count = static_cast<double>(l.count);
    e.percentiles.push_back(q);
  }
  return e;
}

ClientStats node_client(const stats::Client& c, std::int64_t now_s) {
  ClientStats s;
  static_cast<stats::Client&>(s) = c;
  s.connected = (now_s - s.connect_ts) * 1'000'000'000;
  // Clients of old nsqd had no client_id: Go shows hostname:port instead.
  if (s.client_id.empty()) {
    auto colon = s.remote_address.rfind(':');
    std::string port = colon == std::string::npos ? "NA" : s.remote_address.substr(colon + 1);
    s.client_id = s.hostname + ":" + port;
  }
  return s;
}

ChannelStats node_channel(const stats::Channel& c, const std::string& topic, std::int64_t now_s) {
  ChannelStats s;
  static_cast<stats::ChannelCounts&>(s) = c;
  s.topic_name = topic;
  s.channel_name = c.name;
  s.paused = c.paused;
  s.max_attempts = c.max_attempts;
  s.dead_letter_topic = c.dead_letter_topic;
  s.message_ttl = c.message_ttl;
  s.max_depth = c.max_depth;
  s.depth_policy = c.depth_policy;
  s.e2e_processing_latency = node_latency(c.e2e);
  for (const auto& client : c.clients) s.clients.push_back(node_client(client, now_s));
  return s;
}

TopicStats node_topic(const stats::Topic& t, std::int64_t start_time, std::int64_t now_s) {
  TopicStats s;
  s.topic_name = t.name;
  s.start_time = start_time;
  s.depth = t.depth;
  s.backend_depth = t.backend_depth;
  s.memory_depth = t.depth - t.backend_depth;
  s.message_count = static_cast<std::int64_t>(t.message_count);
  s.zone_local_msg_count = t.zone_local_msg_count;
  s.region_local_msg_count = t.region_local_msg_count;
  s.global_msg_count = t.global_msg_count;
  s.paused = t.paused;
  s.e2e_processing_latency = node_latency(t.e2e);
  s.replication = t.replication;
  for (const auto& c : t.channels) s.channels.push_back(node_channel(c, t.name, now_s));
  return s;
}

template <class T>
void sort_host_node(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) {
    return std::tie(a.hostname, a.node) < std::tie(b.hostname, b.node);
  });
}

}  // namespace

std::string join_host_port(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::string Producer::http_address() const { return join_host_port(broadcast_address, http_port); }
std::string Producer::tcp_address() const { return join_host_port(broadcast_address, tcp_port); }

void LatencyAggregate::add(const LatencyAggregate& other) {
  count += other.count;
  for (const auto& q : other.percentiles) {
    auto it = std::find_if(percentiles.begin(), percentiles.end(),
                           [&](const LatencyPercentile& p) { return p.quantile == q.quantile; });
    if (it == percentiles.end()) {
      LatencyPercentile fresh;
      fresh.quantile = q.quantile;
      fresh.min = q.min;
      fresh.max = q.max;
      percentiles.push_back(fresh);
      it = std::prev(percentiles.end());
    }
    it->min = std::min(it->min, q.min);
    it->max = std::max(it->max, q.max);
    it->count += q.count;
    // A running mean weighted by each node's message count.
    if (it->count > 0) it->average += (q.average - it->average) * q.count / it->count;
  }
  std::sort(percentiles.begin(), percentiles.end(),
            [](const LatencyPercentile& a, const LatencyPercentile& b) {
              return a.quantile > b.quantile;
            });
}

void ChannelStats::add(const ChannelStats& a) {
  node = "*";
  ChannelCounts::add(a);
  if (a.paused) paused = true;
  if (max_attempts == 0 && dead_letter_topic.empty() && message_ttl.empty() && max_depth == 0) {
    max_attempts = a.max_attempts;
    dead_letter_topic = a.dead_letter_topic;
    message_ttl = a.message_ttl;
    max_depth = a.max_depth;
    depth_policy = a.depth_policy;
  }
  ChannelStats per_node = a;
  per_node.node_stats.clear();
  node_stats.push_back(std::move(per_node));
  sort_by_host(node_stats);
  clients.insert(clients.end(), a.clients.begin(), a.clients.end());
  sort_by_host(clients);
  e2e_processing_latency.host = "*";
  e2e_processing_latency.topic = topic_name;
  e2e_processing_latency.channel = channel_name;
  e2e_processing_latency.add(a.e2e_processing_latency);
}

void TopicStats::add(const TopicStats& a) {
  node = "*";
  depth += a.depth;
  memory_depth += a.memory_depth;
  backend_depth += a.backend_depth;
  message_count += a.message_count;
  zone_local_msg_count += a.zone_local_msg_count;
  region_local_msg_count += a.region_local_msg_count;
  global_msg_count += a.global_msg_count;
  if (a.paused) paused = true;
  if (a.replication && (!replication || a.replication->role == "leader")) {
    replication = a.replication;
  }
  for (const auto& ac : a.channels) {
    auto it = std::find_if(channels.begin(), channels.end(), [&](const ChannelStats& c) {
      return c.channel_name == ac.channel_name;
    });
    if (it == channels.end()) {
      ChannelStats sum;
      sum.topic_name = ac.topic_name;
      sum.channel_name = ac.channel_name;
      sum.hostname = ac.hostname;
      channels.push_back(std::move(sum));
      it = std::prev(channels.end());
    }
    it->add(ac);
  }
  std::sort(channels.begin(), channels.end(), [](const ChannelStats& x, const ChannelStats& y) {
    return x.channel_name < y.channel_name;
  });
  node_stats.push_back(a);
  sort_by_host(node_stats);
  e2e_processing_latency.host = "*";
  e2e_processing_latency.topic = topic_name;
  e2e_processing_latency.add(a.e2e_processing_latency);
}

void sort_by_host(std::vector<Producer>& producers) {
  std::stable_sort(producers.begin(), producers.end(), [](const Producer& a, const Producer& b) {
    return std::make_tuple(a.hostname, a.http_address()) <
           std::make_tuple(b.hostname, b.http_address());
  });
}
void sort_by_host(std::vector<TopicStats>& topics) { sort_host_node(topics); }
void sort_by_host(std::vector<ChannelStats>& channels) { sort_host_node(channels); }
void sort_by_host(std::vector<ClientStats>& clients) {
  std::stable_sort(clients.begin(), clients.end(), [](const ClientStats& a, const ClientStats& b) {
    return std::tie(a.hostname, a.remote_address) < std::tie(b.hostname, b.remote_address);
  });
}

tl::expected<std::vector<Producer>, std::string> parse_lookupd_producers(const std::string& body) {
  auto doc = parse(body);
  if (!doc) return tl::unexpected(doc.error());
  std::vector<Producer> out;
  const Value* list = array(*doc, "producers");
  if (list == nullptr) return out;
  for (const auto& p : list->GetArray()) {
    if (!p.IsObject()) continue;
    Producer producer;
    producer.remote_address = str(p, "remote_address");
    producer.hostname = str(p, "hostname");
    producer.broadcast_address = str(p, "broadcast_address");
    producer.tcp_port = static_cast<int>(num(p, "tcp_port"));
    producer.http_port = static_cast<int>(num(p, "http_port"));
    producer.version = str(p, "version");
    producer.topology_zone = str(p, "topology_zone");
    producer.topology_region = str(p, "topology_region");
    const Value* topics = array(p, "topics");
    const Value* tombstones = array(p, "tombstones");
    if (topics != nullptr) {
      for (rapidjson::SizeType i = 0; i < topics->Size(); ++i) {
        if (!(*topics)[i].IsString()) continue;
        ProducerTopic t{(*topics)[i].GetString(), false};
        if (tombstones != nullptr && i < tombstones->Size() && (*tombstones)[i].IsBool()) {
          t.tombstoned = (*tombstones)[i].GetBool();
        }
        producer.topics.push_back(std::move(t));
      }
    }
    out.push_back(std::move(producer));
  }
  return out;
}

tl::expected<std::vector<std::string>, std::string> parse_string_array(const std::string& body,
                                                                       const char* key) {
  auto doc = parse(body);
  if (!doc) return tl::unexpected(doc.error());
  std::vector<std::string> out;
  if (const Value* list = array(*doc, key)) {
    for (const auto& v : list->GetArray()) {
      if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
    }
  }
  return out;
}

tl::expected<Producer, std::string> parse_nsqd_info(const std::string& body) {
  auto doc = parse(body);
  if (!doc) return tl::unexpected(doc.error());
  Producer p;
  p.version = str(*doc, "version");
  p.broadcast_address = str(*doc, "broadcast_address");
  p.hostname = str(*doc, "hostname");
  p.tcp_port = static_cast<int>(num(*doc, "tcp_port"));
  p.http_port = static_cast<int>(num(*doc, "http_port"));
  p.topology_zone = str(*doc, "topology_zone");
  p.topology_region = str(*doc, "topology_region");
  return p;
}

tl::expected<std::vector<TopicStats>, std::string> parse_nsqd_stats(const std::string& body,
                                                                    std::int64_t now_s,
                                                                    bool* draining) {
  auto doc = stats::parse_stats_json(body);
  if (!doc) return tl::unexpected(std::string("invalid JSON response"));
  if (draining) *draining = doc->draining;
  std::vector<TopicStats> out;
  // "topics": null (a filtered topic is missing) gives none.
  for (const auto& t : doc->topics) out.push_back(node_topic(t, doc->start_time, now_s));
  return out;
}

// Used by cluster_info.cc to flag nodes older than the newest one.
bool version_less(const std::string& a, const std::string& b) {
  return version_parts(a) < version_parts(b);
}

}  // namespace nsq::admin
