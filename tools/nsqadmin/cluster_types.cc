#include "cluster_types.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <tuple>

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

bool boolean(const Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsBool() && it->value.GetBool();
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

double real(const Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsNumber() ? it->value.GetDouble() : 0.0;
}

// nsqd's {"count", "percentiles": [{"quantile", "value"}] | null, "topic",
// "channel", "host"}; each node's quantile is its own min, max and average.
LatencyAggregate parse_latency(const Value& parent) {
  LatencyAggregate e;
  auto it = parent.FindMember("e2e_processing_latency");
  if (it == parent.MemberEnd() || !it->value.IsObject()) return e;
  const Value& v = it->value;
  e.count = num(v, "count");
  e.topic = str(v, "topic");
  e.channel = str(v, "channel");
  e.host = str(v, "host");
  if (const Value* ps = array(v, "percentiles")) {
    for (const auto& p : ps->GetArray()) {
      if (!p.IsObject()) continue;
      LatencyPercentile q;
      q.quantile = real(p, "quantile");
      q.value = real(p, "value");
      q.has_value = true;
      q.min = q.max = q.average = q.value;
      q.count = static_cast<double>(e.count);
      e.percentiles.push_back(q);
    }
  }
  return e;
}

ClientStats parse_client(const Value& c, std::int64_t now_s) {
  ClientStats s;
  s.remote_address = str(c, "remote_address");
  s.version = str(c, "version");
  s.client_id = str(c, "client_id");
  s.hostname = str(c, "hostname");
  s.user_agent = str(c, "user_agent");
  s.connect_ts = num(c, "connect_ts");
  s.connected = (now_s - s.connect_ts) * 1'000'000'000;
  s.in_flight_count = num(c, "in_flight_count");
  s.ready_count = num(c, "ready_count");
  s.finish_count = num(c, "finish_count");
  s.requeue_count = num(c, "requeue_count");
  s.message_count = num(c, "message_count");
  s.sample_rate = num(c, "sample_rate");
  s.deflate = boolean(c, "deflate");
  s.snappy = boolean(c, "snappy");
  s.authed = boolean(c, "authed");
  s.auth_identity = str(c, "auth_identity");
  s.auth_identity_url = str(c, "auth_identity_url");
  s.tls = boolean(c, "tls");
  s.tls_cipher_suite = str(c, "tls_cipher_suite");
  s.tls_version = str(c, "tls_version");
  s.tls_negotiated_protocol = str(c, "tls_negotiated_protocol");
  s.tls_negotiated_protocol_is_mutual = boolean(c, "tls_negotiated_protocol_is_mutual");
  // Clients of old nsqd had no client_id: Go shows hostname:port instead.
  if (s.client_id.empty()) {
    auto colon = s.remote_address.rfind(':');
    std::string port = colon == std::string::npos ? "NA" : s.remote_address.substr(colon + 1);
    s.client_id = s.hostname + ":" + port;
  }
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
  depth += a.depth;
  memory_depth += a.memory_depth;
  backend_depth += a.backend_depth;
  in_flight_count += a.in_flight_count;
  deferred_count += a.deferred_count;
  requeue_count += a.requeue_count;
  timeout_count += a.timeout_count;
  message_count += a.message_count;
  client_count += a.client_count;
  if (a.paused) paused = true;
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
  if (a.paused) paused = true;
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
  return p;
}

tl::expected<std::vector<TopicStats>, std::string> parse_nsqd_stats(const std::string& body,
                                                                    std::int64_t now_s) {
  auto doc = parse(body);
  if (!doc) return tl::unexpected(doc.error());
  std::vector<TopicStats> out;
  const Value* topics = array(*doc, "topics");
  if (topics == nullptr) return out;  // "topics": null when a filtered topic is missing
  const std::int64_t start_time = num(*doc, "start_time");
  for (const auto& t : topics->GetArray()) {
    if (!t.IsObject()) continue;
    TopicStats ts;
    ts.topic_name = str(t, "topic_name");
    ts.start_time = start_time;
    ts.depth = num(t, "depth");
    ts.backend_depth = num(t, "backend_depth");
    ts.memory_depth = ts.depth - ts.backend_depth;
    ts.message_count = num(t, "message_count");
    ts.paused = boolean(t, "paused");
    ts.e2e_processing_latency = parse_latency(t);
    if (const Value* channels = array(t, "channels")) {
      for (const auto& c : channels->GetArray()) {
        if (!c.IsObject()) continue;
        ChannelStats cs;
        cs.topic_name = ts.topic_name;
        cs.channel_name = str(c, "channel_name");
        cs.depth = num(c, "depth");
        cs.backend_depth = num(c, "backend_depth");
        cs.memory_depth = cs.depth - cs.backend_depth;
        cs.in_flight_count = num(c, "in_flight_count");
        cs.deferred_count = num(c, "deferred_count");
        cs.requeue_count = num(c, "requeue_count");
        cs.timeout_count = num(c, "timeout_count");
        cs.message_count = num(c, "message_count");
        cs.client_count = num(c, "client_count");
        cs.paused = boolean(c, "paused");
        cs.e2e_processing_latency = parse_latency(c);
        if (const Value* clients = array(c, "clients")) {
          for (const auto& cl : clients->GetArray()) {
            if (cl.IsObject()) cs.clients.push_back(parse_client(cl, now_s));
          }
        }
        ts.channels.push_back(std::move(cs));
      }
    }
    out.push_back(std::move(ts));
  }
  return out;
}

// Used by cluster_info.cc to flag nodes older than the newest one.
bool version_less(const std::string& a, const std::string& b) {
  return version_parts(a) < version_parts(b);
}

}  // namespace nsq::admin
