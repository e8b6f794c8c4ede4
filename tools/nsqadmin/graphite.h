#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "options.h"

// What nsqadmin shows from graphite when --graphite-url is set: the series
// names nsqd's statsd lines end up under (--statsd-prefix with the host,
// wrapped in --statsd-counter-format / --statsd-gauge-format), the <img>
// chart URLs of graphite's render API built from them, and the message rate
// read from a render answer (/api/graphite). Pure functions: no I/O.
namespace nsq::admin::graphite {

enum class MetricType { counter, gauge };

// How statsd stores nsqd's key (counters: message_count, requeue_count,
// timeout_count; everything else nsqd sends is a gauge).
MetricType metric_type(std::string_view key);

// --statsd-prefix with `host` ("*" or a node "host:port", '.' and ':' turned
// into '_' as nsqd does) in place of %s, ending in '.'.
std::string host_prefix(const Options& o, std::string_view host);

// `key` inside the counter or gauge format (%s replaced); unchanged when that
// format is empty (the flags' "no formatting").
std::string format_key(const Options& o, MetricType type, const std::string& key);

// sumSeries(<series>) of one topic's (channel empty) or channel's `key` over
// the nsqd matching `host` ("*" = all of them).
std::string target(const Options& o, std::string_view host, const std::string& topic,
                   const std::string& channel, const std::string& key);
// sumSeries of `key` over every topic of one node (the node page).
std::string node_target(const Options& o, std::string_view host, const std::string& key);

struct Chart {
  std::string metric;  // nsqd's key, e.g. "depth"
  std::string title;   // "Depth", "Messages/s", ...
  std::string url;     // the PNG from graphite's render API (or nsqadmin's proxy)
};

// Where chart images come from: --graphite-url, or nsqadmin's own
// <base-path>/render with --proxy-graphite (the browser may not reach graphite).
std::string render_base(const Options& o);

// The chart of one target: the last 2 hours, a counter scaled to a per-second
// rate, summarized over --statsd-interval.
Chart chart(const Options& o, const std::string& metric, const std::string& title,
            const std::string& series);

std::vector<Chart> topic_charts(const Options& o, const std::string& topic);
std::vector<Chart> channel_charts(const Options& o, const std::string& topic,
                                  const std::string& channel);
std::vector<Chart> node_charts(const Options& o, const std::string& node);

// Path and query of the render request behind /api/graphite: the last
// complete statsd interval of `target`, as JSON.
std::string rate_query(const Options& o, const std::string& target);

// The rate ("%.2f" per second, or "N/A" when graphite reports a negative
// count) from a render JSON answer: [{"target": ..., "datapoints": [[v, t], ...]}].
// Error: the answer holds no number where the first datapoint should be.
tl::expected<std::string, std::string> rate_from_render(const std::string& body, const Options& o);

}  // namespace nsq::admin::graphite
