#include "cluster_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace nsq::admin {

struct JsonOut::Impl {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer{buffer};
};

JsonOut::JsonOut() : impl_(std::make_unique<Impl>()) {}
JsonOut::~JsonOut() = default;

void JsonOut::begin_object() { impl_->writer.StartObject(); }
void JsonOut::end_object() { impl_->writer.EndObject(); }
void JsonOut::begin_array() { impl_->writer.StartArray(); }
void JsonOut::end_array() { impl_->writer.EndArray(); }
void JsonOut::key(std::string_view k) {
  impl_->writer.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
void JsonOut::string(std::string_view v) {
  impl_->writer.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}
void JsonOut::integer(long long v) { impl_->writer.Int64(v); }
void JsonOut::real(double v) {
  // Go writes a whole float64 without a fraction ("5", not "5.0").
  if (v == static_cast<double>(static_cast<long long>(v)) && v > -1e15 && v < 1e15) {
    impl_->writer.Int64(static_cast<long long>(v));
  } else {
    impl_->writer.Double(v);
  }
}

// Go marshals each percentile as a map: keys in sorted order.
void JsonOut::latency(const LatencyAggregate& e) {
  begin_object();
  key("count");
  integer(e.count);
  key("percentiles");
  if (e.percentiles.empty()) {
    null();
  } else {
    begin_array();
    for (const auto& p : e.percentiles) {
      begin_object();
      key("average");
      real(p.average);
      key("count");
      real(p.count);
      key("max");
      real(p.max);
      key("min");
      real(p.min);
      key("quantile");
      real(p.quantile);
      if (p.has_value) {
        key("value");
        real(p.value);
      }
      end_object();
    }
    end_array();
  }
  key("topic");
  string(e.topic);
  key("channel");
  string(e.channel);
  key("host");
  string(e.host);
  end_object();
}
void JsonOut::boolean(bool v) { impl_->writer.Bool(v); }
void JsonOut::null() { impl_->writer.Null(); }
void JsonOut::raw(std::string_view json) {
  impl_->writer.RawValue(json.data(), json.size(), rapidjson::kArrayType);
}

void JsonOut::strings(const std::vector<std::string>& v) {
  if (v.empty()) return null();
  begin_array();
  for (const auto& s : v) string(s);
  end_array();
}

void JsonOut::producer(const Producer& p) {
  begin_object();
  key("remote_addresses");
  strings(p.remote_addresses);
  key("remote_address");
  string(p.remote_address);
  key("hostname");
  string(p.hostname);
  key("broadcast_address");
  string(p.broadcast_address);
  key("tcp_port");
  integer(p.tcp_port);
  key("http_port");
  integer(p.http_port);
  key("version");
  string(p.version);
  optional_string("topology_zone", p.topology_zone);
  optional_string("topology_region", p.topology_region);
  key("topics");
  if (p.topics.empty()) {
    null();
  } else {
    begin_array();
    for (const auto& t : p.topics) {
      begin_object();
      key("topic");
      string(t.topic);
      key("tombstoned");
      boolean(t.tombstoned);
      end_object();
    }
    end_array();
  }
  key("out_of_date");
  boolean(p.out_of_date);
  end_object();
}

void JsonOut::producers(const std::vector<Producer>& v) {
  if (v.empty()) return null();
  begin_array();
  for (const auto& p : v) producer(p);
  end_array();
}

void JsonOut::client(const ClientStats& c) {
  begin_object();
  key("node");
  string(c.node);
  key("remote_address");
  string(c.remote_address);
  key("version");
  string(c.version);
  key("client_id");
  string(c.client_id);
  key("hostname");
  string(c.hostname);
  key("user_agent");
  string(c.user_agent);
  key("connect_ts");
  integer(c.connect_ts);
  key("connected");
  integer(c.connected);
  key("in_flight_count");
  integer(c.in_flight_count);
  key("ready_count");
  integer(c.ready_count);
  key("finish_count");
  integer(c.finish_count);
  key("requeue_count");
  integer(c.requeue_count);
  key("message_count");
  integer(c.message_count);
  key("sample_rate");
  integer(c.sample_rate);
  key("deflate");
  boolean(c.deflate);
  key("snappy");
  boolean(c.snappy);
  key("authed");
  boolean(c.authed);
  key("auth_identity");
  string(c.auth_identity);
  key("auth_identity_url");
  string(c.auth_identity_url);
  optional_string("node_topology_region", c.node_topology_region);
  optional_string("node_topology_zone", c.node_topology_zone);
  optional_string("topology_region", c.topology_region);
  optional_string("topology_zone", c.topology_zone);
  key("tls");
  boolean(c.tls);
  key("tls_cipher_suite");
  string(c.tls_cipher_suite);
  key("tls_version");
  string(c.tls_version);
  key("tls_negotiated_protocol");
  string(c.tls_negotiated_protocol);
  key("tls_negotiated_protocol_is_mutual");
  boolean(c.tls_negotiated_protocol_is_mutual);
  end_object();
}

void JsonOut::optional_string(std::string_view k, const std::string& v) {
  if (v.empty()) return;
  key(k);
  string(v);
}

void JsonOut::locality_counts(std::uint64_t zone, std::uint64_t region, std::uint64_t global) {
  for (const auto& [k, v] :
       {std::pair{"zone_local_msg_count", zone}, std::pair{"region_local_msg_count", region},
        std::pair{"global_msg_count", global}}) {
    if (v == 0) continue;
    key(k);
    integer(static_cast<long long>(v));
  }
}

void JsonOut::channel_fields(const ChannelStats& c) {
  key("node");
  string(c.node);
  key("hostname");
  string(c.hostname);
  key("topic_name");
  string(c.topic_name);
  key("channel_name");
  string(c.channel_name);
  key("depth");
  integer(c.depth);
  key("memory_depth");
  integer(c.memory_depth());
  key("backend_depth");
  integer(c.backend_depth);
  key("in_flight_count");
  integer(c.in_flight_count);
  key("deferred_count");
  integer(c.deferred_count);
  key("requeue_count");
  integer(c.requeue_count);
  key("timeout_count");
  integer(c.timeout_count);
  key("message_count");
  integer(c.message_count);
  locality_counts(c.zone_local_msg_count, c.region_local_msg_count, c.global_msg_count);
  for (const auto& [k, v] : {std::pair{"expired_count", c.expired_count},
                             std::pair{"dead_letter_count", c.dead_letter_count},
                             std::pair{"discarded_count", c.discarded_count},
                             std::pair{"dropped_count", c.dropped_count}}) {
    if (v == 0) continue;  // nsq-cpp's, omitted when zero as nsqd does
    key(k);
    integer(static_cast<long long>(v));
  }
  if (c.max_attempts != 0) {
    key("max_attempts");
    integer(c.max_attempts);
  }
  optional_string("dead_letter_topic", c.dead_letter_topic);
  optional_string("message_ttl", c.message_ttl);
  if (c.max_depth != 0) {
    key("max_depth");
    integer(c.max_depth);
  }
  optional_string("depth_policy", c.depth_policy);
  key("client_count");
  integer(c.client_count);
  key("nodes");
  if (c.node_stats.empty()) {
    null();
  } else {
    begin_array();
    for (const auto& n : c.node_stats) channel(n);
    end_array();
  }
  key("clients");
  if (c.clients.empty()) {
    null();
  } else {
    begin_array();
    for (const auto& cl : c.clients) client(cl);
    end_array();
  }
  key("paused");
  boolean(c.paused);
  key("e2e_processing_latency");
  latency(c.e2e_processing_latency);
}

void JsonOut::channel(const ChannelStats& c) {
  begin_object();
  channel_fields(c);
  end_object();
}

void JsonOut::topic_fields(const TopicStats& t) {
  key("node");
  string(t.node);
  key("hostname");
  string(t.hostname);
  key("topic_name");
  string(t.topic_name);
  key("start_time");
  integer(t.start_time);
  key("depth");
  integer(t.depth);
  key("memory_depth");
  integer(t.memory_depth);
  key("backend_depth");
  integer(t.backend_depth);
  key("message_count");
  integer(t.message_count);
  locality_counts(t.zone_local_msg_count, t.region_local_msg_count, t.global_msg_count);
  key("nodes");
  if (t.node_stats.empty()) {
    null();
  } else {
    begin_array();
    for (const auto& n : t.node_stats) topic(n);
    end_array();
  }
  key("channels");
  if (t.channels.empty()) {
    null();
  } else {
    begin_array();
    for (const auto& c : t.channels) channel(c);
    end_array();
  }
  key("paused");
  boolean(t.paused);
  key("e2e_processing_latency");
  latency(t.e2e_processing_latency);
  if (t.replication) {
    key("replication");
    replication(*t.replication);
  }
}

void JsonOut::replication(const stats::Replication& r) {
  auto list = [&](const std::vector<std::string>& v) {
    begin_array();
    for (const auto& s : v) string(s);
    end_array();
  };
  begin_object();
  key("role");
  string(r.role);
  key("epoch");
  integer(r.epoch);
  key("leader");
  string(r.leader);
  key("replicas");
  list(r.replicas);
  key("isr");
  list(r.isr);
  key("lag");
  begin_object();
  for (const auto& [node, records] : r.lag) {
    key(node);
    integer(records);
  }
  end_object();
  end_object();
}

void JsonOut::topic(const TopicStats& t) {
  begin_object();
  topic_fields(t);
  end_object();
}

std::string JsonOut::take() {
  std::string out(impl_->buffer.GetString(), impl_->buffer.GetSize());
  impl_->buffer.Clear();
  impl_->writer.Reset(impl_->buffer);
  return out;
}

std::string message_json(std::string_view text) {
  JsonOut out;
  out.begin_object();
  out.key("message");
  out.string(text);
  out.end_object();
  return out.take();
}

}  // namespace nsq::admin
