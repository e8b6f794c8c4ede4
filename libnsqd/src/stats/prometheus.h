#pragma once

#include <string>
#include <string_view>

#include "nsq/stats/model.h"

// GET /metrics (ours, not Go nsqd's): the snapshot in the Prometheus text
// exposition format 0.0.4 (Content-Type: text/plain; version=0.0.4).
//
// Families (each with # HELP and # TYPE once, emitted only when it has
// samples; labels topic, channel):
//   nsq_up, nsq_health (1 when health is "OK"), nsq_info{version},
//   nsq_start_time_seconds,
//   nsq_topic_messages_total, nsq_topic_message_bytes_total (counters),
//   nsq_topic_depth, nsq_topic_backend_depth, nsq_topic_paused, nsq_topic_channels,
//   nsq_channel_messages_total, nsq_channel_requeues_total,
//   nsq_channel_timeouts_total (counters), nsq_channel_depth,
//   nsq_channel_backend_depth, nsq_channel_in_flight_messages,
//   nsq_channel_deferred_messages, nsq_channel_clients, nsq_channel_paused,
//   nsq_{topic,channel}_e2e_processing_latency_seconds (summary: one sample per
//   configured quantile, NaN without samples; no _sum/_count since the window
//   count is not monotonic) and
//   nsq_{topic,channel}_e2e_processing_latency_window_samples (gauge),
//   nsq_clients (subscribed consumers, sum of channel client counts),
//   nsq_producers (only when the snapshot includes clients),
//   nsq_memory_* gauges, nsq_memory_gc_pause_seconds (summary, quantiles
//   0.95/0.99/1), nsq_memory_gc_runs_total (when memory is present).
// The e2e/gc latency families are summaries, not gauges, because Prometheus
// reserves the "quantile" label for summaries (promtool rejects it on a gauge).
namespace nsq::nsqd {

std::string render_prometheus(const stats::Snapshot& s);

// The Content-Type to serve it with.
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

namespace prometheus {

// A label value with \\, \" and \n escaped (format 0.0.4).
std::string escape_label_value(std::string_view v);

// A sample value: integers as decimal, others shortest round-trip (Go's %v:
// 0.0005, 2.5e-09), NaN, +Inf, -Inf.
std::string format_value(double v);

}  // namespace prometheus
}  // namespace nsq::nsqd
