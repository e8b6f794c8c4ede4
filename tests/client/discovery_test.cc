#include <atomic>
#include <set>

#include "client_harness.h"
#include "nsq/client/consumer.h"
#include "nsq/client/producer.h"
#include "nsq/http/server.h"

namespace nsq::client::test {
namespace {

// Two nsqd registered with one nsqlookupd; a consumer that only knows the
// lookupd finds both, and a third nsqd started later.
TEST(ConsumerDiscovery, FindsEveryProducerThroughLookupdIncludingNewOnes) {
  testutil::NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  std::string lookupd_tcp = "--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port());
  std::string lookupd_http = "127.0.0.1:" + std::to_string(lookupd.http_port());
  RunningNsqd a, b, late;
  ASSERT_EQ(a.start({lookupd_tcp, "--broadcast-address=127.0.0.1"}), "");
  ASSERT_EQ(b.start({lookupd_tcp, "--broadcast-address=127.0.0.1"}), "");
  {
    Producer pa(a.tcp_address(), Config());
    Producer pb(b.tcp_address(), Config());
    ASSERT_TRUE(pa.publish("found", "from-a"));
    ASSERT_TRUE(pb.publish("found", "from-b"));
  }
  Seen seen;
  Config config = fast_config();
  config.max_in_flight = 10;  // with 1, three nsqd would take turns every low_rdy_idle_timeout
  Consumer consumer("found", "ch", config);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_lookupd(lookupd_http));
  EXPECT_FALSE(consumer.connect_to_lookupd("http://" + lookupd_http + "/lookup"))
      << "the same lookupd twice";
  ASSERT_TRUE(seen.wait_count(2));
  auto bodies = seen.bodies();
  EXPECT_EQ(std::set<std::string>(bodies.begin(), bodies.end()),
            (std::set<std::string>{"from-a", "from-b"}));

  ASSERT_EQ(late.start({lookupd_tcp, "--broadcast-address=127.0.0.1"}), "");
  {
    Producer pl(late.tcp_address(), Config());
    ASSERT_TRUE(pl.publish("found", "from-late"));
  }
  ASSERT_TRUE(seen.wait_count(3));
  EXPECT_EQ(seen.bodies().back(), "from-late");
  EXPECT_TRUE(late.eventually([&] { return consumer.stats().connections == 3; }));
}

TEST(ConsumerDiscovery, UnreachableLookupdIsRetriedWithoutHarm) {
  testutil::NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  std::string lookupd_http = "127.0.0.1:" + std::to_string(lookupd.http_port());
  RunningNsqd nsqd;
  ASSERT_EQ(nsqd.start({"--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port()),
                        "--broadcast-address=127.0.0.1"}),
            "");
  {
    Producer p(nsqd.tcp_address(), Config());
    ASSERT_TRUE(p.publish("retry", "x"));
  }
  // A dead lookupd first (its port, closed), then the live one.
  testutil::NsqlookupdProcess dead;
  ASSERT_EQ(dead.start({}), "");
  std::string dead_http = "127.0.0.1:" + std::to_string(dead.http_port());
  ASSERT_TRUE(dead.stop());
  Seen seen;
  Consumer consumer("retry", "ch", fast_config());
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_lookupds({dead_http, lookupd_http}));
  ASSERT_TRUE(seen.wait_count(1));
}

}  // namespace
}  // namespace nsq::client::test

namespace nsq::client::test {
namespace {

// What the consumer's lookupd query looks like on the wire: the v1 Accept
// header, and the auth secret as a bearer token (go-nsq's
// skip_lookupd_authorization, true by default, sends it).
TEST(ConsumerDiscovery, LookupQueryCarriesAcceptAndBearerSecret) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<http::Request> requests;
  http::Server recorder(http::ServerOptions{}, [&](http::Request req, http::ReplyFn reply) {
    {
      std::lock_guard lock(mu);
      requests.push_back(req);
    }
    cv.notify_all();
    http::Response r;
    r.status = 404;
    r.body = R"({"message":"TOPIC_NOT_FOUND"})";
    reply(std::move(r));
  });
  ASSERT_EQ(recorder.listen("127.0.0.1:0"), "");
  recorder.start();
  Config c = fast_config();
  c.auth_secret = "tok en";
  Consumer consumer("needs_auth", "ch", c);
  consumer.set_handler([](Message&) -> HandlerResult { return {}; });
  ASSERT_TRUE(consumer.connect_to_lookupd("127.0.0.1:" + std::to_string(recorder.port())));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kEventTimeout, [&] { return !requests.empty(); }));
    const auto& req = requests.front();
    EXPECT_EQ(req.path, "/lookup");
    EXPECT_EQ(req.raw_query, "topic=needs_auth");
    EXPECT_EQ(req.header("accept").value_or(""), "application/vnd.nsq; version=1.0");
    EXPECT_EQ(req.header("authorization").value_or(""), "Bearer tok en");
  }
  consumer.stop();
  ASSERT_TRUE(consumer.wait_for(kEventTimeout));
  recorder.stop();
}

}  // namespace
}  // namespace nsq::client::test
