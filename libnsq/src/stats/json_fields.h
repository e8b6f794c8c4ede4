#pragma once

#include <concepts>
#include <type_traits>
#include <utility>

#include "nsq/stats/model.h"

// The keys of the /stats JSON document, in the order Go nsqd v1.3.0 writes
// them, for each model type: the one list both parse_stats_json and
// write_stats_json walk, so a key is named once.
//
// visit(object, v) calls, per key, one of these on the visitor v:
//   v.value(key, member)          a string, integer, bool or double
//   v.omit_empty(key, member)     Go's omitempty: left out when zero or empty
//   v.object(key, member)         a nested object (Latency)
//   v.list(key, vector)           an array of objects
//   v.nullable(key, vector, null_when(flag, value))
//                                 an array, or null when flag == value
//   v.optional(key, optional)     an object, left out when absent
//   v.strings(key, vector)        an array of strings
//   v.counts(key, vector)         an object of integers by name, in the vector's order
//   v.clients(key, vector)        an array, null when the document leaves clients out
//   v.producers(key, vector)      the same, and null when empty (Go's nil slice)
// Objects (and array elements) are visited by calling visit again; the
// object argument is const for a writer, mutable for a reader.
namespace nsq::stats::json_fields {

template <class T, class Model>
concept Is = std::same_as<std::remove_const_t<T>, Model>;

// A list rendered as null when flag == value (flag is a model member).
template <class Flag>
struct NullWhen {
  Flag& flag;
  bool value;
};
template <class Flag>
NullWhen<Flag> null_when(Flag& flag, bool value) {
  return {flag, value};
}

// A percentile: Go's map[string]float64, keys sorted.
template <class T, class V>
requires Is<T, std::pair<double, double>>
void visit(T& p, V& v) {
  v.value("quantile", p.first);
  v.value("value", p.second);
}

template <class T, class V>
requires Is<T, Latency>
void visit(T& l, V& v) {
  v.value("count", l.count);
  v.nullable("percentiles", l.percentiles, null_when(l.configured, false));
}

template <class T, class V>
requires Is<T, PubCount>
void visit(T& p, V& v) {
  v.value("topic", p.topic);
  v.value("count", p.count);
}

template <class T, class V>
requires Is<T, Client>
void visit(T& c, V& v) {
  v.value("client_id", c.client_id);
  v.value("hostname", c.hostname);
  v.value("version", c.version);
  v.value("remote_address", c.remote_address);
  v.value("state", c.state);
  v.value("ready_count", c.ready_count);
  v.value("in_flight_count", c.in_flight_count);
  v.value("message_count", c.message_count);
  v.value("finish_count", c.finish_count);
  v.value("requeue_count", c.requeue_count);
  v.value("connect_ts", c.connect_ts);
  v.value("sample_rate", c.sample_rate);
  v.value("deflate", c.deflate);
  v.value("snappy", c.snappy);
  v.value("user_agent", c.user_agent);
  v.omit_empty("authed", c.authed);
  v.omit_empty("auth_identity", c.auth_identity);
  v.omit_empty("auth_identity_url", c.auth_identity_url);
  v.omit_empty("node_topology_region", c.node_topology_region);
  v.omit_empty("node_topology_zone", c.node_topology_zone);
  v.omit_empty("topology_region", c.topology_region);
  v.omit_empty("topology_zone", c.topology_zone);
  v.omit_empty("pub_counts", c.pub_counts);
  v.value("tls", c.tls);
  v.value("tls_cipher_suite", c.tls_cipher_suite);
  v.value("tls_version", c.tls_version);
  v.value("tls_negotiated_protocol", c.tls_negotiated_protocol);
  v.value("tls_negotiated_protocol_is_mutual", c.tls_negotiated_protocol_is_mutual);
}

template <class T, class V>
requires Is<T, Channel>
void visit(T& c, V& v) {
  v.value("channel_name", c.name);
  v.value("depth", c.depth);
  v.value("backend_depth", c.backend_depth);
  v.value("in_flight_count", c.in_flight_count);
  v.value("deferred_count", c.deferred_count);
  v.value("message_count", c.message_count);
  v.value("requeue_count", c.requeue_count);
  v.value("timeout_count", c.timeout_count);
  v.omit_empty("zone_local_msg_count", c.zone_local_msg_count);
  v.omit_empty("region_local_msg_count", c.region_local_msg_count);
  v.omit_empty("global_msg_count", c.global_msg_count);
  v.omit_empty("expired_count", c.expired_count);
  v.omit_empty("dead_letter_count", c.dead_letter_count);
  v.omit_empty("discarded_count", c.discarded_count);
  v.omit_empty("dropped_count", c.dropped_count);
  v.omit_empty("max_attempts", c.max_attempts);
  v.omit_empty("dead_letter_topic", c.dead_letter_topic);
  v.omit_empty("message_ttl", c.message_ttl);
  v.omit_empty("max_depth", c.max_depth);
  v.omit_empty("depth_policy", c.depth_policy);
  v.value("client_count", c.client_count);
  v.clients("clients", c.clients);
  v.value("paused", c.paused);
  v.object("e2e_processing_latency", c.e2e);
}

template <class T, class V>
requires Is<T, Topic>
void visit(T& t, V& v) {
  v.value("topic_name", t.name);
  v.list("channels", t.channels);
  v.value("depth", t.depth);
  v.value("backend_depth", t.backend_depth);
  v.value("message_count", t.message_count);
  v.value("message_bytes", t.message_bytes);
  v.omit_empty("message_ttl", t.message_ttl);
  v.omit_empty("max_depth", t.max_depth);
  v.omit_empty("depth_policy", t.depth_policy);
  v.omit_empty("dropped_count", t.dropped_count);
  v.omit_empty("zone_local_msg_count", t.zone_local_msg_count);
  v.omit_empty("region_local_msg_count", t.region_local_msg_count);
  v.omit_empty("global_msg_count", t.global_msg_count);
  v.value("paused", t.paused);
  v.object("e2e_processing_latency", t.e2e);
  v.optional("replication", t.replication);
}

template <class T, class V>
requires Is<T, Replication>
void visit(T& r, V& v) {
  v.value("role", r.role);
  v.value("epoch", r.epoch);
  v.value("leader", r.leader);
  v.strings("replicas", r.replicas);
  v.strings("isr", r.isr);
  v.counts("lag", r.lag);
}

template <class T, class V>
requires Is<T, Memory>
void visit(T& m, V& v) {
  v.value("heap_objects", m.heap_objects);
  v.value("heap_idle_bytes", m.heap_idle_bytes);
  v.value("heap_in_use_bytes", m.heap_in_use_bytes);
  v.value("heap_released_bytes", m.heap_released_bytes);
  v.value("gc_pause_usec_100", m.gc_pause_usec_100);
  v.value("gc_pause_usec_99", m.gc_pause_usec_99);
  v.value("gc_pause_usec_95", m.gc_pause_usec_95);
  v.value("next_gc_bytes", m.next_gc_bytes);
  v.value("gc_total_runs", m.gc_total_runs);
}

template <class T, class V>
requires Is<T, Snapshot>
void visit(T& s, V& v) {
  v.value("version", s.version);
  v.value("health", s.health);
  v.omit_empty("draining", s.draining);
  v.value("start_time", s.start_time);
  v.nullable("topics", s.topics, null_when(s.topics_null, true));
  v.optional("memory", s.memory);
  v.producers("producers", s.producers);
}

}  // namespace nsq::stats::json_fields
