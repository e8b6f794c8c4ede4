#include "stats/stats_text.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace nsq::nsqd {
namespace {

class StatsText : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    if (tz != nullptr) saved_tz_ = tz;
    had_tz_ = tz != nullptr;
    set_tz("UTC0");
  }
  void TearDown() override {
    if (had_tz_) {
      ::setenv("TZ", saved_tz_.c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  static void set_tz(const char* tz) {
    ::setenv("TZ", tz, 1);
    ::tzset();
  }

 private:
  std::string saved_tz_;
  bool had_tz_ = false;
};

TEST_F(StatsText, NanosecondsToHuman) {
  EXPECT_EQ(text::nanoseconds_to_human(0), "0.0ns");
  EXPECT_EQ(text::nanoseconds_to_human(1000), "1000.0ns");  // strictly greater than
  EXPECT_EQ(text::nanoseconds_to_human(1500), "1.5us");
  EXPECT_EQ(text::nanoseconds_to_human(2345678), "2.3ms");
  EXPECT_EQ(text::nanoseconds_to_human(1e9), "1000.0ms");
  EXPECT_EQ(text::nanoseconds_to_human(61e9), "61.0s");
}

TEST_F(StatsText, Rfc3339Local) {
  EXPECT_EQ(text::rfc3339_local(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(text::rfc3339_local(1700000000), "2023-11-14T22:13:20Z");
  set_tz("IST-05:30");
  EXPECT_EQ(text::rfc3339_local(1700000000), "2023-11-15T03:43:20+05:30");
  set_tz("PST8");
  EXPECT_EQ(text::rfc3339_local(1700000000), "2023-11-14T14:13:20-08:00");
}

TEST_F(StatsText, EmptyWithMemory) {
  stats::Snapshot s;
  s.start_time = 1700000000;
  s.memory = stats::Memory{1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(render_stats_text(s, "nsqd v1.3.0 (built w/gcc)", 1700003723),
            "nsqd v1.3.0 (built w/gcc)\n"
            "start_time 2023-11-14T22:13:20Z\n"
            "uptime 1h2m3s\n"
            "\n"
            "Health: OK\n"
            "\n"
            "Memory:\n"
            "   heap_objects             \t1\n"
            "   heap_idle_bytes          \t2\n"
            "   heap_in_use_bytes        \t3\n"
            "   heap_released_bytes      \t4\n"
            "   gc_pause_usec_100        \t5\n"
            "   gc_pause_usec_99         \t6\n"
            "   gc_pause_usec_95         \t7\n"
            "   next_gc_bytes            \t8\n"
            "   gc_total_runs            \t9\n"
            "\n"
            "Topics: None\n"
            "\n"
            "Producers: None\n");
}

TEST_F(StatsText, TopicsChannelsClientsProducers) {
  stats::Snapshot s;
  s.start_time = 1700000000;
  s.health = "NOK - bad disk";

  stats::Topic t;
  t.name = "orders";
  t.depth = 12;
  t.backend_depth = 2;
  t.message_count = 345;
  t.e2e.configured = true;
  t.e2e.count = 3;
  t.e2e.percentiles = {{1.0, 2.5e9}, {0.5, 1500.0}};
  stats::Channel c;
  c.name = "archive";
  c.depth = 1;
  c.backend_depth = 0;
  c.in_flight_count = 3;
  c.deferred_count = 4;
  c.requeue_count = 5;
  c.timeout_count = 6;
  c.message_count = 345;
  c.paused = true;
  stats::Client cl;
  cl.hostname = "worker1";
  cl.remote_address = "10.0.0.1:40000";
  cl.user_agent = "go-nsq/1.1.0";
  cl.state = 3;
  cl.in_flight_count = 3;
  cl.ready_count = 10;
  cl.finish_count = 300;
  cl.requeue_count = 5;
  cl.message_count = 308;
  cl.connect_ts = 1700000000 + 100;
  c.clients.push_back(cl);
  t.channels.push_back(c);
  s.topics.push_back(t);

  stats::Topic p;
  p.name = "paused";
  p.paused = true;
  s.topics.push_back(p);

  stats::Client prod;
  prod.hostname = "pub";
  prod.remote_address = "[::1]:5555";
  prod.user_agent = "curl";
  prod.pub_counts = {{"orders", 300}, {"events", 45}};
  prod.connect_ts = 1700000000;
  s.producers.push_back(prod);

  EXPECT_EQ(render_stats_text(s, "nsqd v1.3.0", 1700000165),
            "nsqd v1.3.0\n"
            "start_time 2023-11-14T22:13:20Z\n"
            "uptime 2m45s\n"
            "\n"
            "Health: NOK - bad disk\n"
            "\n"
            "Topics:\n"
            "   [orders         ] depth: 12    be-depth: 2     msgs: 345      e2e%: 2.5s, 1.5us\n"
            "   *P [archive                  ] depth: 1     be-depth: 0     inflt: 3    def: 4    "
            "re-q: 5     timeout: 6     msgs: 345      e2e%: \n"
            "        [V2 worker1:40000 go-nsq/1.1.0] state: 3 inflt: 3    rdy: 10   fin: 300      "
            "re-q: 5        msgs: 308      connected: 1m5s\n"
            "\n"
            "*P [paused         ] depth: 0     be-depth: 0     msgs: 0        e2e%: \n"
            "\n"
            "Producers:\n"
            "   [V2 pub:5555 curl        ] msgs: 345      topics: orders=300,events=45 connected: "
            "2m45s\n");
}

// Topology-aware consumption: a line under the channel once it delivered.
TEST_F(StatsText, DeliveriesByLocality) {
  stats::Snapshot s;
  s.start_time = 1700000000;
  stats::Topic t;
  t.name = "t";
  stats::Channel c;
  c.name = "c";
  c.zone_local_msg_count = 5;
  c.global_msg_count = 1;
  c.expired_count = 2;
  c.dead_letter_count = 3;
  t.channels.push_back(c);
  t.channels.push_back(stats::Channel{});
  s.topics.push_back(t);
  const std::string out = render_stats_text(s, "nsqd v1.3.0", 1700000000);
  EXPECT_NE(out.find("\n        delivered zone-local: 5        region-local: 0        global: 1\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("delivered"), out.rfind("delivered")) << "only where it delivered";
  EXPECT_NE(
      out.find(
          "\n        expired: 2        dead-lettered: 3        discarded: 0        dropped: 0\n"),
      std::string::npos)
      << out;
  EXPECT_EQ(out.find("expired"), out.rfind("expired"));
}

TEST_F(StatsText, ClientLinePadsIdAndHandlesOddAddresses) {
  stats::Client c;
  c.hostname = "h";
  c.remote_address = "/tmp/nsqd.sock";  // unix socket: no port
  c.user_agent = "ua";
  c.connect_ts = 100;
  EXPECT_EQ(
      text::client_line(c, 100),
      "[V2 h: ua                ] state: 0 inflt: 0    rdy: 0    fin: 0        re-q: 0        "
      "msgs: 0        connected: 0s");
}

}  // namespace
}  // namespace nsq::nsqd
