// The graphite series names, chart URLs and render-answer parsing
// (tools/nsqadmin/graphite.cc): pure functions, no network.
#include "graphite.h"

#include <gtest/gtest.h>

#include <chrono>

#include "nsq/http/client.h"

namespace nsq::admin::graphite {
namespace {

TEST(NsqadminGraphite, SeriesNamesFollowNsqdStatsdKeysAndGoFormats) {
  Options o;  // nsq.%s, stats.counters.%s.count, stats.gauges.%s, 60s
  EXPECT_EQ(host_prefix(o, "*"), "nsq.*.");
  // nsqd's host key: broadcast address and HTTP port, '.' and ':' as '_'.
  EXPECT_EQ(host_prefix(o, "10.0.0.1:4151"), "nsq.10_0_0_1_4151.");
  EXPECT_EQ(target(o, "*", "orders", "", "message_count"),
            "sumSeries(stats.counters.nsq.*.topic.orders.message_count.count)");
  EXPECT_EQ(target(o, "*", "orders", "billing", "depth"),
            "sumSeries(stats.gauges.nsq.*.topic.orders.channel.billing.depth)");
  EXPECT_EQ(target(o, "*", "orders", "billing", "timeout_count"),
            "sumSeries(stats.counters.nsq.*.topic.orders.channel.billing.timeout_count.count)");
  EXPECT_EQ(node_target(o, "127.0.0.1:4151", "message_count"),
            "sumSeries(stats.counters.nsq.127_0_0_1_4151.topic.*.message_count.count)");

  // Empty formats mean "no formatting"; a prefix already ending in '.' keeps one.
  o.statsd_counter_format = "";
  o.statsd_gauge_format = "";
  o.statsd_prefix = "prod.nsq.";
  EXPECT_EQ(target(o, "*", "t", "", "message_count"), "sumSeries(prod.nsq.topic.t.message_count)");
  EXPECT_EQ(target(o, "*", "t", "", "depth"), "sumSeries(prod.nsq.topic.t.depth)");
}

TEST(NsqadminGraphite, ChartUrlsPointAtGraphiteOrTheProxy) {
  Options o;
  o.graphite_url = "http://graphite.example:8080/";
  auto charts = topic_charts(o, "orders");
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].metric, "message_count");
  EXPECT_EQ(charts[0].title, "Messages/s");
  EXPECT_EQ(charts[0].url.rfind("http://graphite.example:8080/render?", 0), 0u) << charts[0].url;
  // A counter is scaled to a per-second rate and summarized over the interval.
  const std::string scaled =
      "summarize(scale(sumSeries(stats.counters.nsq.*.topic.orders.message_count.count),0.0166667)"
      ",\"60sec\",\"avg\")";
  EXPECT_NE(charts[0].url.find("&target=" + http::query_escape(scaled)), std::string::npos)
      << charts[0].url;
  const std::string gauge =
      "summarize(sumSeries(stats.gauges.nsq.*.topic.orders.depth),\"60sec\",\"avg\")";
  EXPECT_NE(charts[1].url.find("&target=" + http::query_escape(gauge)), std::string::npos);
  EXPECT_EQ(channel_charts(o, "orders", "billing").size(), 6u);

  o.proxy_graphite = true;
  EXPECT_EQ(topic_charts(o, "orders")[0].url.rfind("/render?", 0), 0u);
  o.base_path = "/admin";
  EXPECT_EQ(topic_charts(o, "orders")[0].url.rfind("/admin/render?", 0), 0u);
}

TEST(NsqadminGraphite, RateFromRenderAnswer) {
  Options o;
  EXPECT_EQ(rate_query(o, "sumSeries(a.b)"),
            "/render?format=json&from=-120sec&target=sumSeries%28a.b%29&until=-60sec");
  EXPECT_EQ(rate_from_render(R"([{"target":"x","datapoints":[[150.0,1700000000]]}])", o).value(),
            "2.50");
  EXPECT_EQ(rate_from_render(R"([{"target":"x","datapoints":[[-1,1700000000]]}])", o).value(),
            "N/A");
  o.statsd_interval = std::chrono::seconds(10);
  EXPECT_EQ(rate_from_render(R"([{"target":"x","datapoints":[[15,1]]}])", o).value(), "1.50");
  // Go dereferences the first datapoint: an empty or null one is an error (500).
  EXPECT_FALSE(rate_from_render("[]", o));
  EXPECT_FALSE(rate_from_render(R"([{"target":"x","datapoints":[[null,1]]}])", o));
  EXPECT_FALSE(rate_from_render(R"([{"target":"x","datapoints":[]}])", o));
  EXPECT_FALSE(rate_from_render("not json", o));
}

}  // namespace
}  // namespace nsq::admin::graphite
