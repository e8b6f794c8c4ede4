// Dead letters and message TTL in the channel (docs/operations.md).
#include <gtest/gtest.h>

#include <mutex>

#include "channel_fixture.h"

namespace nsq::nsqd {
namespace {

using coretest::TestSubscriber;

// Records what the channel dead-letters instead of publishing it.
class ChannelDeadLetterTest : public ChannelTest {
 protected:
  ChannelDeadLetterTest() {
    env_.ctx.dead_letter = [this](const std::string& topic, std::vector<std::string> bodies,
                                  std::function<void(std::error_code)> done) {
      {
        std::lock_guard lock(mu_);
        for (auto& b : bodies) sent_.push_back(topic + "/" + b);
      }
      done({});
    };
  }

  std::shared_ptr<Channel> channel_with(QueueSettings s) {
    auto ch = make_channel();
    ch->set_settings(std::move(s));
    EXPECT_EQ(ch->add_client(1, sub_), Channel::AddResult::ok);
    return ch;
  }

  // Messages first..first+n-1 published `age` ago ("body-<i>").
  void put_aged(Channel& ch, int first, int n, std::chrono::nanoseconds age) {
    std::vector<MessageRef> msgs;
    for (int i = first; i < first + n; ++i) {
      msgs.push_back(MessageRef::create(format_message_id(static_cast<std::uint64_t>(i)),
                                        unix_nanos() - age.count(), "body-" + std::to_string(i)));
    }
    DiskWrites spill;
    ch.put(msgs, 0ms, spill);
  }

  std::vector<std::string> sent() {
    std::lock_guard lock(mu_);
    return sent_;
  }

  std::shared_ptr<TestSubscriber> sub_ = std::make_shared<TestSubscriber>();
  std::mutex mu_;
  std::vector<std::string> sent_;
};

QueueSettings dead_letters(std::int64_t attempts, std::string topic = "dlq") {
  QueueSettings s;
  s.max_attempts = attempts;
  s.dead_letter_topic = std::move(topic);
  return s;
}

TEST_F(ChannelDeadLetterTest, RequeuedPastMaxAttemptsGoesToTheDeadLetterTopic) {
  auto ch = channel_with(dead_letters(2));
  put_n(*ch, 1, 1);
  DiskWrites spill;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    auto got = take(*ch, 1, 1);
    ASSERT_EQ(got.size(), 1u) << attempt;
    EXPECT_EQ(got[0].attempts, attempt);
    EXPECT_EQ(ch->requeue(1, got[0].msg->id(), 0ms, spill), Channel::AckResult::ok);
  }
  EXPECT_TRUE(take(*ch, 1, 1).empty()) << "not delivered a third time";
  EXPECT_EQ(sent(), (std::vector<std::string>{"dlq/body-1"}));
  ChannelStats s = ch->stats();
  EXPECT_EQ(s.dead_lettered, 1u);
  EXPECT_EQ(s.depth + s.in_flight + s.deferred, 0);
}

TEST_F(ChannelDeadLetterTest, ATimeoutCountsAsAnAttemptToo) {
  auto ch = channel_with(dead_letters(1));
  put_n(*ch, 1, 1);
  ASSERT_EQ(take(*ch, 1, 1, 1000, 20ms).size(), 1u);
  ASSERT_TRUE(coretest::eventually([&] { return !sent().empty(); }, 5s));
  EXPECT_EQ(sent(), (std::vector<std::string>{"dlq/body-1"}));
  EXPECT_EQ(ch->stats().timeout_count, 1u);
}

TEST_F(ChannelDeadLetterTest, WithoutADeadLetterTopicExhaustedMessagesAreDropped) {
  auto ch = channel_with(dead_letters(1, ""));
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);
  DiskWrites spill;
  ch->requeue(1, got[0].msg->id(), 0ms, spill);
  EXPECT_TRUE(take(*ch, 1, 1).empty());
  EXPECT_TRUE(sent().empty());
  EXPECT_EQ(ch->stats().discarded, 1u);
}

TEST_F(ChannelDeadLetterTest, ADelayedRequeueOnItsLastAttemptIsNotDeferred) {
  auto ch = channel_with(dead_letters(1));
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  DiskWrites spill;
  ch->requeue(1, got[0].msg->id(), 60000ms, spill);
  EXPECT_EQ(ch->stats().deferred, 0);
  EXPECT_EQ(sent().size(), 1u);
}

TEST_F(ChannelDeadLetterTest, ExpiredMessagesAreNotDelivered) {
  QueueSettings s = dead_letters(0);
  s.message_ttl = 1min;
  auto ch = channel_with(s);
  put_aged(*ch, 1, 2, 2min);
  put_aged(*ch, 3, 1, 30s);
  EXPECT_EQ(bodies(take(*ch, 1, 10)), (std::vector<std::string>{"body-3"}));
  EXPECT_EQ(sent(), (std::vector<std::string>{"dlq/body-1", "dlq/body-2"}));
  ChannelStats st = ch->stats();
  EXPECT_EQ(st.expired, 2u);
  EXPECT_EQ(st.dead_lettered, 2u);
  EXPECT_EQ(st.depth, 0);
}

TEST_F(ChannelDeadLetterTest, TheShorterOfTheTopicsAndTheChannelsTtlApplies) {
  auto ch = channel_with(QueueSettings{});  // no dead-letter topic: dropped
  ch->set_topic_ttl(1min);
  put_aged(*ch, 1, 1, 2min);
  EXPECT_TRUE(take(*ch, 1, 10).empty());
  EXPECT_EQ(ch->stats().discarded, 1u);
  QueueSettings longer;
  longer.message_ttl = 1h;
  ch->set_settings(longer);
  put_aged(*ch, 2, 1, 2min);
  EXPECT_TRUE(take(*ch, 1, 10).empty()) << "the topic's minute still wins";
  ch->set_topic_ttl(0ms);
  put_aged(*ch, 3, 1, 2min);
  EXPECT_EQ(take(*ch, 1, 10).size(), 1u) << "the channel's hour";
  EXPECT_EQ(ch->stats().expired, 2u);
}

}  // namespace
}  // namespace nsq::nsqd
