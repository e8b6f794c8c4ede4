#include "nsq/client/producer.h"

#include <atomic>
#include <future>

#include "client_harness.h"

namespace nsq::client::test {
namespace {

class ProducerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(nsqd_.start(), ""); }
  RunningNsqd nsqd_;
};

TEST_F(ProducerTest, PubMpubDpubReachTheTopic) {
  Producer producer(nsqd_.tcp_address(), Config());
  ASSERT_TRUE(producer.publish("orders", "one"));
  ASSERT_TRUE(producer.multi_publish("orders", {"two", "three", "four"}));
  ASSERT_TRUE(producer.deferred_publish("orders", 60000ms, "later"));
  auto doc = nsqd_.stats("orders");
  ASSERT_TRUE(doc->IsObject());
  const auto& topic = (*doc)["topics"][0];
  EXPECT_EQ(topic["message_count"].GetInt64(), 5);
}

TEST_F(ProducerTest, AsyncPublishesArePipelinedAndAnsweredInOrder) {
  Producer producer(nsqd_.tcp_address(), Config());
  constexpr int kCount = 5000;
  std::mutex mu;
  std::vector<int> order;
  std::promise<void> all;
  for (int i = 0; i < kCount; ++i) {
    producer.publish_async("pipelined", "m" + std::to_string(i), [&, i](PublishResult r) {
      EXPECT_TRUE(r) << r.error();
      std::lock_guard lock(mu);
      order.push_back(i);
      if (order.size() == kCount) all.set_value();
    });
  }
  ASSERT_EQ(all.get_future().wait_for(kEventTimeout), std::future_status::ready);
  for (int i = 0; i < kCount; ++i) ASSERT_EQ(order[i], i);
  EXPECT_EQ((*nsqd_.stats("pipelined"))["topics"][0]["message_count"].GetInt64(), kCount);
}

TEST_F(ProducerTest, ErrorFrameFailsThatCommandWithNsqdsText) {
  Producer producer(nsqd_.tcp_address(), Config());
  auto bad = producer.publish("bad!topic", "x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "E_BAD_TOPIC PUB topic name \"bad!topic\" is not valid");
  // The fatal error closed the connection; the next publish reconnects.
  EXPECT_TRUE(producer.publish("good", "x"));
}

TEST_F(ProducerTest, UnreachableNsqdFailsThePublish) {
  RunningNsqd other;
  ASSERT_EQ(other.start(), "");
  std::string address = other.tcp_address();
  ASSERT_TRUE(other.process.stop());
  Config c;
  c.dial_timeout = 500ms;
  Producer producer(address, c);
  auto r = producer.publish("t", "x");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("dial tcp " + address), std::string::npos) << r.error();
  EXPECT_FALSE(producer.ping());
}

TEST_F(ProducerTest, PingConnects) {
  Producer producer(nsqd_.tcp_address(), Config());
  EXPECT_TRUE(producer.ping());
}

TEST_F(ProducerTest, StopWaitsForPendingRepliesThenRefuses) {
  Producer producer(nsqd_.tcp_address(), Config());
  std::atomic<int> ok{0};
  for (int i = 0; i < 1000; ++i)
    producer.publish_async("drain", "x", [&](PublishResult r) { ok += r ? 1 : 0; });
  producer.stop();
  EXPECT_EQ(ok.load(), 1000) << "stop() returns after every reply";
  auto late = producer.publish("drain", "y");
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), "producer stopped");
  EXPECT_EQ((*nsqd_.stats("drain"))["topics"][0]["message_count"].GetInt64(), 1000);
}

TEST_F(ProducerTest, ConnectionLossFailsPendingAndReconnects) {
  Producer producer(nsqd_.tcp_address(), Config());
  ASSERT_TRUE(producer.publish("t", "before"));
  std::vector<std::string> args = {"--tcp-address=" + nsqd_.tcp_address()};
  ASSERT_TRUE(nsqd_.process.stop());
  // Restart on the same port with the same data.
  testutil::NsqdProcess::Options o;
  o.data_path = nsqd_.dir.path();
  o.extra_args = args;
  testutil::NsqdProcess again;
  ASSERT_EQ(again.start(o), "");
  // The first publish may meet the dead connection; a later one gets through.
  bool delivered = false;
  for (int i = 0; i < 3 && !delivered; ++i) delivered = producer.publish("t", "after").has_value();
  EXPECT_TRUE(delivered);
}

}  // namespace
}  // namespace nsq::client::test
