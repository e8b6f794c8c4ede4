#include "graphite.h"

#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>

#include "nsq/http/client.h"

namespace nsq::admin::graphite {
namespace {

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (auto pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

// Whole seconds, as Go divides a Duration by time.Second; never 0, so a
// sub-second interval cannot divide by zero.
long long interval_seconds(const Options& o) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(o.statsd_interval).count();
  return s > 0 ? s : 1;
}

// Go's UI names each chart by nsqd's key.
const char* title_for(std::string_view key) {
  if (key == "depth") return "Depth";
  if (key == "in_flight_count") return "In-Flight";
  if (key == "deferred_count") return "Deferred";
  if (key == "requeue_count") return "Requeued/s";
  if (key == "timeout_count") return "Timed Out/s";
  if (key == "message_count") return "Messages/s";
  if (key == "clients") return "Connections";
  return "";
}

// Red for what piles up, blue for the rest (Go's colours).
const char* color_for(std::string_view key) {
  return key == "depth" || key == "deferred_count" ? "red" : "blue";
}

}  // namespace

MetricType metric_type(std::string_view key) {
  if (key == "message_count" || key == "requeue_count" || key == "timeout_count") {
    return MetricType::counter;
  }
  return MetricType::gauge;
}

std::string host_prefix(const Options& o, std::string_view host) {
  std::string host_key(host);
  for (char& c : host_key) {
    if (c == '.' || c == ':') c = '_';
  }
  std::string prefix = o.statsd_prefix;
  replace_all(prefix, "%s", host_key);
  if (prefix.empty() || prefix.back() != '.') prefix += '.';
  return prefix;
}

std::string format_key(const Options& o, MetricType type, const std::string& key) {
  std::string format =
      type == MetricType::counter ? o.statsd_counter_format : o.statsd_gauge_format;
  if (format.empty()) return key;
  replace_all(format, "%s", key);
  return format;
}

std::string target(const Options& o, std::string_view host, const std::string& topic,
                   const std::string& channel, const std::string& key) {
  std::string series = host_prefix(o, host) + "topic." + topic + ".";
  if (!channel.empty()) series += "channel." + channel + ".";
  series += key;
  return "sumSeries(" + format_key(o, metric_type(key), series) + ")";
}

std::string node_target(const Options& o, std::string_view host, const std::string& key) {
  const std::string series = host_prefix(o, host) + "topic.*." + key;
  return "sumSeries(" + format_key(o, metric_type(key), series) + ")";
}

std::string render_base(const Options& o) {
  if (o.proxy_graphite) {
    return (o.base_path == "/" ? std::string() : o.base_path) + "/render";
  }
  std::string url = o.graphite_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/render";
}

Chart chart(const Options& o, const std::string& metric, const std::string& title,
            const std::string& series) {
  const long long interval = interval_seconds(o);
  std::string t = series;
  if (metric_type(metric) == MetricType::counter) {
    // statsd stores a count per interval: scaled, the chart reads per second.
    char scale[32];
    std::snprintf(scale, sizeof(scale), "%g", 1.0 / static_cast<double>(interval));
    t = "scale(" + t + "," + scale + ")";
  }
  t = "summarize(" + t + ",\"" + std::to_string(interval) + "sec\",\"avg\")";
  const std::pair<const char*, std::string> params[] = {
      {"colorList", color_for(metric)},
      {"height", "300"},
      {"width", "800"},
      {"bgcolor", "ff000000"},
      {"fgcolor", "999999"},
      {"yMin", "0"},
      {"lineMode", "connected"},
      {"drawNullAsZero", "false"},
      {"from", "-2h"},
      {"until", "-1min"},
      {"target", t},
  };
  std::string url = render_base(o);
  char sep = '?';
  for (const auto& [k, v] : params) {
    url += sep;
    url += k;
    url += '=';
    url += http::query_escape(v);
    sep = '&';
  }
  return Chart{metric, title, std::move(url)};
}

std::vector<Chart> topic_charts(const Options& o, const std::string& topic) {
  std::vector<Chart> out;
  for (const char* key : {"message_count", "depth"}) {
    out.push_back(chart(o, key, title_for(key), target(o, "*", topic, "", key)));
  }
  return out;
}

std::vector<Chart> channel_charts(const Options& o, const std::string& topic,
                                  const std::string& channel) {
  std::vector<Chart> out;
  for (const char* key : {"message_count", "depth", "in_flight_count", "deferred_count",
                          "requeue_count", "timeout_count"}) {
    out.push_back(chart(o, key, title_for(key), target(o, "*", topic, channel, key)));
  }
  return out;
}

std::vector<Chart> node_charts(const Options& o, const std::string& node) {
  std::vector<Chart> out;
  for (const char* key : {"message_count", "depth"}) {
    out.push_back(chart(o, key, title_for(key), node_target(o, node, key)));
  }
  return out;
}

std::string rate_query(const Options& o, const std::string& target) {
  const long long interval = interval_seconds(o);
  // Go encodes url.Values sorted by key.
  return "/render?format=json&from=-" + std::to_string(2 * interval) +
         "sec&target=" + http::query_escape(target) + "&until=-" + std::to_string(interval) + "sec";
}

tl::expected<std::string, std::string> rate_from_render(const std::string& body, const Options& o) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsArray()) {
    return tl::unexpected(std::string("graphite answer is not a JSON array"));
  }
  if (doc.Empty() || !doc[0].IsObject() || !doc[0].HasMember("datapoints")) {
    return tl::unexpected(std::string("graphite answer has no series"));
  }
  const auto& points = doc[0]["datapoints"];
  if (!points.IsArray() || points.Empty() || !points[0].IsArray() || points[0].Empty() ||
      !points[0][0].IsNumber()) {
    return tl::unexpected(std::string("graphite answer has no datapoint"));
  }
  const double count = points[0][0].GetDouble();
  if (count < 0) return std::string("N/A");
  char text[64];
  std::snprintf(text, sizeof(text), "%.2f", count / static_cast<double>(interval_seconds(o)));
  return std::string(text);
}

}  // namespace nsq::admin::graphite
