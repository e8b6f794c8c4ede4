#include "stats/prometheus.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <nsq/flags/go_strconv.h>

namespace nsq::nsqd {
namespace prometheus {

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (const char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::trunc(v) && std::fabs(v) < 9.0e15) {
    return std::to_string(static_cast<std::int64_t>(v));
  }
  // Shortest round-trip digits, exponent form only below 1e-4 or from 1e21.
  return flags::format_go_float(v);
}

}  // namespace prometheus

namespace {

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

// One metric family: metadata once, then its samples.
class Family {
 public:
  Family(std::string_view name, std::string_view type, std::string_view help)
      : name_(name), type_(type), help_(help) {}

  void add(const Labels& labels, std::string_view value) { add_suffixed("", labels, value); }

  void add(const Labels& labels, std::int64_t v) { add(labels, std::to_string(v)); }
  void add(const Labels& labels, std::uint64_t v) { add(labels, std::to_string(v)); }
  void add(const Labels& labels, double v) { add(labels, prometheus::format_value(v)); }

  void add_suffixed(std::string_view suffix, const Labels& labels, std::string_view value) {
    samples_ += name_;
    samples_ += suffix;
    if (!labels.empty()) {
      samples_ += '{';
      bool first = true;
      for (const auto& [k, v] : labels) {
        if (!first) samples_ += ',';
        first = false;
        samples_ += k;
        samples_ += "=\"";
        samples_ += prometheus::escape_label_value(v);
        samples_ += '"';
      }
      samples_ += '}';
    }
    samples_ += ' ';
    samples_ += value;
    samples_ += '\n';
  }

  void write(std::string& out) const {
    if (samples_.empty()) return;
    out += "# HELP ";
    out += name_;
    out += ' ';
    out += help_;  // constant text: nothing to escape
    out += "\n# TYPE ";
    out += name_;
    out += ' ';
    out += type_;
    out += '\n';
    out += samples_;
  }

 private:
  std::string_view name_;
  std::string_view type_;
  std::string_view help_;
  std::string samples_;
};

std::string quantile_label(double q) { return prometheus::format_value(q); }

// The quantile samples of a latency in seconds (NaN without observations).
void add_latency(Family& quantiles, Family& samples, Labels labels, const stats::Latency& l) {
  if (!l.configured) return;
  samples.add(labels, l.count);
  std::vector<double> seen;  // a quantile configured twice is one series
  for (const auto& [q, ns] : l.percentiles) {
    if (std::find(seen.begin(), seen.end(), q) != seen.end()) continue;
    seen.push_back(q);
    const std::string ql = quantile_label(q);
    Labels with_q = labels;
    with_q.emplace_back("quantile", ql);
    quantiles.add(with_q, l.count == 0 ? std::nan("") : ns / 1e9);
  }
}

}  // namespace

std::string render_prometheus(const stats::Snapshot& s) {
  Family up("nsq_up", "gauge", "1 when nsqd answered this scrape.");
  Family health("nsq_health", "gauge", "1 when nsqd reports its health as OK, else 0.");
  Family info("nsq_info", "gauge", "nsqd version, as a label; always 1.");
  Family draining("nsq_draining", "gauge",
                  "1 while nsqd drains (refuses new messages, delivers the queued ones, exits).");
  Family start("nsq_start_time_seconds", "gauge",
               "Start time of nsqd since the Unix epoch in seconds.");
  Family clients("nsq_clients", "gauge", "Consumers subscribed to a channel.");
  Family producers("nsq_producers", "gauge", "TCP connections that have published at least once.");

  Family t_msgs("nsq_topic_messages_total", "counter",
                "Messages published to the topic since nsqd started.");
  Family t_bytes("nsq_topic_message_bytes_total", "counter",
                 "Body bytes published to the topic since nsqd started.");
  Family t_depth("nsq_topic_depth", "gauge", "Messages queued in the topic (memory and disk).");
  Family t_bdepth("nsq_topic_backend_depth", "gauge", "Messages queued in the topic's disk queue.");
  Family t_paused("nsq_topic_paused", "gauge", "1 when the topic is paused.");
  Family t_channels("nsq_topic_channels", "gauge", "Channels of the topic.");
  Family t_e2e(
      "nsq_topic_e2e_processing_latency_seconds", "summary",
      "End-to-end processing latency (publish to FIN) over the topic's channels, rolling window.");
  Family t_e2e_n("nsq_topic_e2e_processing_latency_window_samples", "gauge",
                 "FINs in the topic's current e2e latency window.");

  // Cluster mode only (docs/replication.md): absent otherwise.
  Family r_leader("nsq_topic_replication_leader", "gauge", "1 when this nsqd leads the topic.");
  Family r_epoch("nsq_topic_replication_epoch", "gauge", "The topic's leader epoch.");
  Family r_replicas("nsq_topic_replication_replicas", "gauge", "Replicas of the topic.");
  Family r_isr("nsq_topic_replication_in_sync_replicas", "gauge",
               "Replicas of the topic in sync (the leader included).");
  Family r_lag(
      "nsq_topic_replication_lag_messages", "gauge",
      "Messages of the leader's replica log a follower has not confirmed (on the leader).");

  Family c_msgs("nsq_channel_messages_total", "counter",
                "Messages the channel received from its topic.");
  Family c_req("nsq_channel_requeues_total", "counter", "Messages requeued (REQ) on the channel.");
  Family c_tmo("nsq_channel_timeouts_total", "counter",
               "In-flight messages of the channel that timed out.");
  Family c_depth("nsq_channel_depth", "gauge", "Messages queued in the channel (memory and disk).");
  Family c_bdepth("nsq_channel_backend_depth", "gauge",
                  "Messages queued in the channel's disk queue.");
  Family c_infl("nsq_channel_in_flight_messages", "gauge",
                "Messages delivered and awaiting FIN, REQ or timeout.");
  Family c_def("nsq_channel_deferred_messages", "gauge", "Deferred messages of the channel.");
  Family c_clients("nsq_channel_clients", "gauge", "Consumers subscribed to the channel.");
  Family c_paused("nsq_channel_paused", "gauge", "1 when the channel is paused.");
  // Topology-aware consumption only (--enable-experiment): absent otherwise.
  Family c_local("nsq_channel_deliveries_by_locality_total", "counter",
                 "Messages delivered to consumers in this nsqd's zone, its region, or elsewhere "
                 "(topology-aware consumption).");
  Family c_expired("nsq_channel_expired_total", "counter",
                   "Messages of the channel not delivered because they outlived their TTL.");
  Family c_dead("nsq_channel_dead_letters_total", "counter",
                "Messages the channel sent to its dead-letter topic (out of attempts or past "
                "their TTL).");
  Family c_discarded("nsq_channel_discarded_total", "counter",
                     "Messages the channel dropped, out of attempts or past their TTL, with no "
                     "dead-letter topic.");
  Family c_dropped("nsq_channel_dropped_total", "counter",
                   "Messages the channel dropped to stay within max_depth (drop_oldest).");
  Family t_dropped("nsq_topic_dropped_total", "counter",
                   "Messages the topic dropped to stay within max_depth (drop_oldest).");
  Family c_e2e("nsq_channel_e2e_processing_latency_seconds", "summary",
               "End-to-end processing latency (publish to FIN) of the channel, rolling window.");
  Family c_e2e_n("nsq_channel_e2e_processing_latency_window_samples", "gauge",
                 "FINs in the channel's current e2e latency window.");

  Family m_objects("nsq_memory_heap_objects", "gauge", "Allocated heap objects (0 when unknown).");
  Family m_idle("nsq_memory_heap_idle_bytes", "gauge", "Heap bytes not in use.");
  Family m_inuse("nsq_memory_heap_in_use_bytes", "gauge", "Heap bytes in use.");
  Family m_released("nsq_memory_heap_released_bytes", "gauge", "Heap bytes returned to the OS.");
  Family m_nextgc("nsq_memory_next_gc_bytes", "gauge", "Go's next GC target (0 in nsq-cpp).");
  Family m_gcpause("nsq_memory_gc_pause_seconds", "summary", "GC pause quantiles (0 in nsq-cpp).");
  Family m_gcruns("nsq_memory_gc_runs_total", "counter", "GC runs (0 in nsq-cpp).");

  up.add({}, std::int64_t{1});
  health.add({}, std::int64_t{s.health == "OK" ? 1 : 0});
  info.add({{"version", s.version}}, std::int64_t{1});
  start.add({}, s.start_time);
  draining.add({}, std::int64_t{s.draining ? 1 : 0});

  std::int64_t total_clients = 0;
  for (const auto& t : s.topics) {
    const Labels tl{{"topic", t.name}};
    t_msgs.add(tl, t.message_count);
    t_bytes.add(tl, t.message_bytes);
    t_dropped.add(tl, t.dropped_count);
    t_depth.add(tl, t.depth);
    t_bdepth.add(tl, t.backend_depth);
    t_paused.add(tl, std::int64_t{t.paused ? 1 : 0});
    t_channels.add(tl, static_cast<std::int64_t>(t.channels.size()));
    add_latency(t_e2e, t_e2e_n, tl, t.e2e);
    if (const auto& r = t.replication) {
      r_leader.add(tl, std::int64_t{r->role == "leader" ? 1 : 0});
      r_epoch.add(tl, r->epoch);
      r_replicas.add(tl, static_cast<std::int64_t>(r->replicas.size()));
      r_isr.add(tl, static_cast<std::int64_t>(r->isr.size()));
      for (const auto& [replica, records] : r->lag) {
        r_lag.add({{"topic", t.name}, {"replica", replica}}, records);
      }
    }
    for (const auto& c : t.channels) {
      const Labels cl{{"topic", t.name}, {"channel", c.name}};
      c_msgs.add(cl, c.message_count);
      c_req.add(cl, c.requeue_count);
      c_tmo.add(cl, c.timeout_count);
      c_depth.add(cl, c.depth);
      c_bdepth.add(cl, c.backend_depth);
      c_infl.add(cl, c.in_flight_count);
      c_def.add(cl, c.deferred_count);
      c_clients.add(cl, c.client_count);
      c_paused.add(cl, std::int64_t{c.paused ? 1 : 0});
      c_expired.add(cl, c.expired_count);
      c_dead.add(cl, c.dead_letter_count);
      c_discarded.add(cl, c.discarded_count);
      c_dropped.add(cl, c.dropped_count);
      if (c.zone_local_msg_count + c.region_local_msg_count + c.global_msg_count > 0) {
        for (const auto& [where, n] : {std::pair{"zone", c.zone_local_msg_count},
                                       std::pair{"region", c.region_local_msg_count},
                                       std::pair{"global", c.global_msg_count}}) {
          c_local.add({{"topic", t.name}, {"channel", c.name}, {"locality", where}}, n);
        }
      }
      add_latency(c_e2e, c_e2e_n, cl, c.e2e);
      total_clients += c.client_count;
    }
  }
  clients.add({}, total_clients);
  if (s.include_clients) producers.add({}, static_cast<std::int64_t>(s.producers.size()));

  if (s.memory) {
    const auto& m = *s.memory;
    m_objects.add({}, m.heap_objects);
    m_idle.add({}, m.heap_idle_bytes);
    m_inuse.add({}, m.heap_in_use_bytes);
    m_released.add({}, m.heap_released_bytes);
    m_nextgc.add({}, m.next_gc_bytes);
    m_gcpause.add({{"quantile", "0.95"}}, static_cast<double>(m.gc_pause_usec_95) / 1e6);
    m_gcpause.add({{"quantile", "0.99"}}, static_cast<double>(m.gc_pause_usec_99) / 1e6);
    m_gcpause.add({{"quantile", "1"}}, static_cast<double>(m.gc_pause_usec_100) / 1e6);
    m_gcruns.add({}, m.gc_total_runs);
  }

  std::string out;
  out.reserve(4096);
  for (const Family* f :
       {&up,        &health,   &draining,  &info,       &start,       &clients,    &producers,
        &t_msgs,    &t_bytes,  &t_depth,   &t_bdepth,   &t_paused,    &t_channels, &t_e2e,
        &t_e2e_n,   &r_leader, &r_epoch,   &r_replicas, &r_isr,       &r_lag,      &c_msgs,
        &c_req,     &c_tmo,    &c_depth,   &c_bdepth,   &c_infl,      &c_def,      &c_clients,
        &c_paused,  &c_local,  &c_expired, &c_dead,     &c_discarded, &c_dropped,  &t_dropped,
        &c_e2e,     &c_e2e_n,  &m_objects, &m_idle,     &m_inuse,     &m_released, &m_nextgc,
        &m_gcpause, &m_gcruns}) {
    f->write(out);
  }
  return out;
}

}  // namespace nsq::nsqd
