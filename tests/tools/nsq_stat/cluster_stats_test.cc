#include "cluster_stats.h"

#include <gtest/gtest.h>

#include <map>

#include "options.h"
#include "stat_loop.h"

namespace nsq::stat {
namespace {

// A fake network: (address, target) -> body or error.
struct FakeCluster {
  std::map<std::pair<std::string, std::string>, tl::expected<std::string, std::string>> routes;
  std::vector<std::string> requests;

  Fetch fetch() {
    return [this](const std::string& address,
                  const std::string& target) -> tl::expected<std::string, std::string> {
      requests.push_back(address + target);
      auto it = routes.find({address, target});
      if (it == routes.end()) return tl::unexpected("no route " + address + target);
      return it->second;
    };
  }
};

std::string stats_body(int depth, int messages, int clients) {
  return R"({"topics":[{"topic_name":"t","channels":[{"channel_name":"c","depth":)" +
         std::to_string(depth) + R"(,"backend_depth":1,"message_count":)" +
         std::to_string(messages) + R"(,"client_count":)" + std::to_string(clients) + "}]}]}";
}

const std::string kStatsQuery = "/stats?format=json&topic=t&channel=c&include_clients=false";

TEST(ClusterStats, LookupdProducersAreDeduplicatedAndSummed) {
  FakeCluster net;
  const std::string lookup =
      R"({"channels":[],"producers":[{"broadcast_address":"10.0.0.1","http_port":1},)"
      R"({"broadcast_address":"10.0.0.2","http_port":2}]})";
  net.routes[{"l1:4161", "/lookup?topic=t"}] = lookup;
  net.routes[{"l2:4161", "/lookup?topic=t"}] = lookup;
  net.routes[{"10.0.0.1:1", kStatsQuery}] = stats_body(5, 100, 1);
  net.routes[{"10.0.0.2:2", kStatsQuery}] = stats_body(7, 50, 2);

  auto producers = lookupd_topic_producers(net.fetch(), "t", {"l1:4161", "l2:4161"});
  ASSERT_TRUE(producers) << producers.error();
  ASSERT_EQ(producers->size(), 2u);
  auto sums = producers_channel_stats(net.fetch(), *producers, "t", "c");
  ASSERT_TRUE(sums) << sums.error();
  const stats::ChannelCounts& c = sums->at("c");
  EXPECT_EQ(c.depth, 12);
  EXPECT_EQ(c.backend_depth, 2);
  EXPECT_EQ(c.memory_depth(), 10);
  EXPECT_EQ(c.message_count, 150u);
  EXPECT_EQ(c.client_count, 3);
}

TEST(ClusterStats, NsqdProducersComeFromInfoWhenTheyHaveTheTopic) {
  FakeCluster net;
  const std::string topic_query = "/stats?format=json&topic=t&include_clients=false";
  net.routes[{"a:1", topic_query}] = stats_body(0, 0, 0);
  net.routes[{"b:2", topic_query}] = std::string(R"({"topics":null})");
  net.routes[{"a:1", "/info"}] = std::string(R"({"broadcast_address":"host-a","http_port":9})");
  auto producers = nsqd_topic_producers(net.fetch(), "t", {"a:1", "b:2"});
  ASSERT_TRUE(producers) << producers.error();
  ASSERT_EQ(producers->size(), 1u);
  EXPECT_EQ((*producers)[0].http_address(), "host-a:9");
}

TEST(ClusterStats, AnyFailureIsAnErrorListingEach) {
  FakeCluster net;
  net.routes[{"l1:1", "/lookup?topic=t"}] = tl::unexpected(std::string("e1"));
  net.routes[{"l2:1", "/lookup?topic=t"}] = tl::unexpected(std::string("e2"));
  auto producers = lookupd_topic_producers(net.fetch(), "t", {"l1:1", "l2:1"});
  ASSERT_FALSE(producers);
  EXPECT_EQ(producers.error(), "e1\ne2");
}

TEST(ClusterStats, TopicAndChannelAreQueryEscaped) {
  FakeCluster net;
  auto r = producers_channel_stats(net.fetch(), {Producer{"h", 1}}, "t", "c#ephemeral");
  ASSERT_FALSE(r);
  ASSERT_EQ(net.requests.size(), 1u);
  EXPECT_EQ(net.requests[0],
            "h:1/stats?format=json&topic=t&channel=c%23ephemeral&include_clients=false");
}

Options loop_options(int count) {
  Options o;
  o.topic = "t";
  o.channel = "c";
  o.nsqd_http_addresses = {"n:1"};
  o.interval = std::chrono::seconds(1);
  o.count = count;
  return o;
}

TEST(StatLoop, CountLinesAfterABaselineWithHeadersEvery25) {
  FakeCluster net;
  int polls = 0;
  const std::string topic_query = "/stats?format=json&topic=t&include_clients=false";
  net.routes[{"n:1", topic_query}] = stats_body(0, 0, 0);
  net.routes[{"n:1", "/info"}] = std::string(R"({"broadcast_address":"n","http_port":1})");
  StatLoopIo io;
  std::string out;
  int sleeps = 0;
  io.fetch = [&](const std::string& a, const std::string& t) {
    if (t == kStatsQuery) {
      ++polls;
      return tl::expected<std::string, std::string>(stats_body(0, polls * 10, 1));
    }
    return net.fetch()(a, t);
  };
  io.print = [&](std::string_view s) { out += s; };
  io.sleep = [&](std::chrono::nanoseconds) { ++sleeps; };
  ASSERT_TRUE(run_stat_loop(loop_options(30), io));
  EXPECT_EQ(polls, 31);
  EXPECT_EQ(sleeps, 30);
  // headers at polls 0 and 25: 4 header lines + 30 rows.
  std::size_t lines = 0;
  for (char c : out) lines += c == '\n';
  EXPECT_EQ(lines, 34u);
  EXPECT_EQ(out.find("ingress"), out.find('\n') + 1);
  // every row: 10 messages per 1s poll, depth unchanged (0, of which 1 on disk).
  EXPECT_NE(out.find("     10      10 |       0      -1       1     0     0 |       0       0"
                     "           20       1\n"),
            std::string::npos);
}

TEST(StatLoop, MissingChannelIsGoFatalText) {
  FakeCluster net;
  net.routes[{"n:1", "/stats?format=json&topic=t&include_clients=false"}] =
      std::string(R"({"topics":null})");
  StatLoopIo io;
  io.fetch = net.fetch();
  io.print = [](std::string_view) {};
  io.sleep = [](std::chrono::nanoseconds) {};
  auto r = run_stat_loop(loop_options(1), io);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "ERROR: failed to find channel(c) in stats metadata for topic(t)");
}

TEST(StatLoop, ProducerErrorIsGoFatalText) {
  FakeCluster net;
  StatLoopIo io;
  io.fetch = net.fetch();
  io.print = [](std::string_view) {};
  io.sleep = [](std::chrono::nanoseconds) {};
  auto r = run_stat_loop(loop_options(1), io);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().rfind("ERROR: failed to get topic producers - no route n:1/stats", 0), 0u)
      << r.error();
}

}  // namespace
}  // namespace nsq::stat
