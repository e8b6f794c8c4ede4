#include "core/channel.h"

#include <gtest/gtest.h>

#include <spdlog/sinks/base_sink.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "channel_fixture.h"
#include "core_test_env.h"
#include "nsq/names.h"

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;
using coretest::CoreEnv;
using coretest::eventually;
using coretest::id_string;
using coretest::make_message;
using coretest::test_options;
using coretest::TestSubscriber;
using AckResult = Channel::AckResult;

TEST_F(ChannelTest, TakeIsBoundedByTheRdyWindowNotACredit) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 10);

  auto first = take(*ch, 1, 3);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(bodies(first), (std::vector<std::string>{"body-1", "body-2", "body-3"}));
  for (const auto& m : first) EXPECT_EQ(m.attempts, 1);
  EXPECT_EQ(ch->stats().in_flight, 3);
  EXPECT_EQ(ch->stats().depth, 7);

  // The window is full: nothing more until something leaves flight.
  EXPECT_TRUE(take(*ch, 1, 3).empty());

  // FIN makes room for exactly one more, without a new RDY.
  EXPECT_EQ(ch->finish(1, first[0].msg->id()), AckResult::ok);
  auto next = take(*ch, 1, 3);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].msg->body(), "body-4");
  EXPECT_EQ(ch->stats().in_flight, 3);
}

TEST_F(ChannelTest, TakeIsBoundedByMaxCount) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 10);
  EXPECT_EQ(take(*ch, 1, 100, 2).size(), 2u);
  EXPECT_EQ(take(*ch, 1, 100, 0).size(), 0u);
  EXPECT_EQ(take(*ch, 1, 100, 5).size(), 5u);
  EXPECT_EQ(ch->stats().in_flight, 7);
}

TEST_F(ChannelTest, RdyZeroOrUnknownClientTakesNothing) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 3);
  EXPECT_TRUE(take(*ch, 1, 0).empty());
  EXPECT_TRUE(take(*ch, 2, 10).empty());  // never added
  EXPECT_EQ(ch->stats().depth, 3);
  EXPECT_EQ(ch->stats().in_flight, 0);
}

TEST_F(ChannelTest, PutWakesOnlyAClientThatWantedMore) {
  auto ch = make_channel();
  auto hungry = std::make_shared<TestSubscriber>();
  auto full = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, hungry), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, full), Channel::AddResult::ok);

  put_n(*ch, 1, 1);
  ASSERT_EQ(take(*ch, 2, 1).size(), 1u);  // got all it asked for
  EXPECT_TRUE(take(*ch, 1, 5).empty());   // asked, got nothing: waiting
  EXPECT_EQ(hungry->wakes(), 0);

  put_n(*ch, 2, 1);
  EXPECT_EQ(hungry->wakes(), 1);
  EXPECT_EQ(full->wakes(), 0);

  // A wake is one-shot: the next put does not wake it again until it takes.
  put_n(*ch, 3, 1);
  EXPECT_EQ(hungry->wakes(), 1);
}

TEST_F(ChannelTest, FinishResults) {
  auto ch = make_channel();
  auto a = std::make_shared<TestSubscriber>();
  auto b = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, a), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, b), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);
  const MessageId id = got[0].msg->id();

  EXPECT_EQ(ch->finish(1, format_message_id(999)), AckResult::not_in_flight);
  EXPECT_EQ(ch->finish(2, id), AckResult::not_owner);
  EXPECT_EQ(ch->stats().in_flight, 1);
  EXPECT_EQ(ch->finish(1, id), AckResult::ok);
  EXPECT_EQ(ch->finish(1, id), AckResult::not_in_flight);
  auto s = ch->stats();
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.depth, 0);
  EXPECT_EQ(s.requeue_count, 0u);
  EXPECT_EQ(s.message_count, 1u);
}

TEST_F(ChannelTest, RequeueWithoutDelayKeepsAttemptsAndCounts) {
  auto ch = make_channel();
  auto a = std::make_shared<TestSubscriber>();
  auto b = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, a), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, b), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);
  const MessageId id = got[0].msg->id();

  DiskWrites spill;
  EXPECT_EQ(ch->requeue(2, id, 0ms, spill), AckResult::not_owner);
  EXPECT_EQ(ch->requeue(1, format_message_id(999), 0ms, spill), AckResult::not_in_flight);
  EXPECT_EQ(ch->stats().requeue_count, 0u);

  // b waits for a message; the requeue wakes it.
  EXPECT_TRUE(take(*ch, 2, 1).empty());
  EXPECT_EQ(ch->requeue(1, id, 0ms, spill), AckResult::ok);
  EXPECT_TRUE(spill.empty());
  EXPECT_EQ(b->wakes(), 1);
  auto s = ch->stats();
  EXPECT_EQ(s.requeue_count, 1u);
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.depth, 1);

  auto again = take(*ch, 2, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].msg->id(), id);
  EXPECT_EQ(again[0].attempts, 2);
  EXPECT_EQ(ch->finish(1, id), AckResult::not_owner);
  EXPECT_EQ(ch->finish(2, id), AckResult::ok);
}

TEST_F(ChannelTest, RequeueWithDelayIsDeferredUntilTheDeadline) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);

  constexpr auto kDelay = 50ms;
  DiskWrites spill;
  auto requeued_at = Clock::now();
  ASSERT_EQ(ch->requeue(1, got[0].msg->id(), kDelay, spill), AckResult::ok);
  EXPECT_TRUE(spill.empty());
  auto s = ch->stats();
  EXPECT_EQ(s.deferred, 1);
  EXPECT_EQ(s.depth, 0);
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.requeue_count, 1u);

  // Not available before the deadline; asking makes the client wait.
  int seen = sub->wakes();
  EXPECT_TRUE(take(*ch, 1, 1).empty());
  ASSERT_TRUE(sub->wait_wake_after(seen));
  EXPECT_GE(Clock::now() - requeued_at, kDelay);

  auto again = take(*ch, 1, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].msg->id(), got[0].msg->id());
  EXPECT_EQ(again[0].attempts, 2);
  EXPECT_EQ(ch->stats().deferred, 0);
}

TEST_F(ChannelTest, DeferredPutArrivesAfterTheDelay) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  auto put_at = Clock::now();
  put_n(*ch, 1, 2, 50ms);
  EXPECT_EQ(ch->stats().deferred, 2);
  EXPECT_EQ(ch->stats().message_count, 2u);
  int seen = sub->wakes();
  EXPECT_TRUE(take(*ch, 1, 10).empty());
  ASSERT_TRUE(sub->wait_wake_after(seen));
  EXPECT_GE(Clock::now() - put_at, 50ms);
  auto got = take(*ch, 1, 10);
  EXPECT_EQ(got.size(), 2u);
  for (const auto& m : got) EXPECT_EQ(m.attempts, 1);
}

TEST_F(ChannelTest, InFlightTimeoutRequeuesKeepingAttempts) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto taken_at = Clock::now();
  int seen = sub->wakes();
  auto got = take(*ch, 1, 1, 1000, 50ms);
  ASSERT_EQ(got.size(), 1u);

  // The timeout gives the client its room back and wakes it.
  ASSERT_TRUE(sub->wait_wake_after(seen));
  EXPECT_GE(Clock::now() - taken_at, 50ms);
  auto s = ch->stats();
  EXPECT_EQ(s.timeout_count, 1u);
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.depth, 1);
  EXPECT_EQ(s.requeue_count, 0u);
  EXPECT_EQ(ch->finish(1, got[0].msg->id()), AckResult::not_in_flight);

  auto again = take(*ch, 1, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].msg->id(), got[0].msg->id());
  EXPECT_EQ(again[0].attempts, 2);
}

TEST_F(ChannelTest, TouchExtendsTheDeadline) {
  auto ch = make_channel();
  auto a = std::make_shared<TestSubscriber>();
  auto b = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, a), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, b), Channel::AddResult::ok);
  put_n(*ch, 1, 2);
  auto touched = take(*ch, 1, 1, 1000, 50ms);
  ASSERT_EQ(touched.size(), 1u);
  EXPECT_EQ(ch->touch(1, touched[0].msg->id(), 60s), AckResult::ok);
  // b's message, with a longer timeout than a's original one, is the clock.
  auto clock = take(*ch, 2, 1, 1000, 100ms);
  ASSERT_EQ(clock.size(), 1u);

  ASSERT_TRUE(eventually([&] { return ch->stats().timeout_count >= 1; }));
  EXPECT_EQ(ch->finish(2, clock[0].msg->id()), AckResult::not_in_flight);
  EXPECT_EQ(ch->finish(1, touched[0].msg->id()), AckResult::ok);
  EXPECT_EQ(ch->stats().timeout_count, 1u);
}

TEST_F(ChannelTest, TouchResults) {
  auto ch = make_channel();
  auto a = std::make_shared<TestSubscriber>();
  auto b = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, a), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, b), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(ch->touch(2, got[0].msg->id(), 60s), AckResult::not_owner);
  EXPECT_EQ(ch->touch(1, format_message_id(999), 60s), AckResult::not_in_flight);
  EXPECT_EQ(ch->touch(1, got[0].msg->id(), 60s), AckResult::ok);
}

class ChannelTouchCapTest : public ChannelTest {
 protected:
  static Options opts() {
    Options o = test_options();
    o.max_msg_timeout = 100ms;
    return o;
  }
  ChannelTouchCapTest() : ChannelTest(opts()) {}
};

TEST_F(ChannelTouchCapTest, TouchIsCappedAtDeliveryPlusMaxMsgTimeout) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto delivered = Clock::now();
  auto got = take(*ch, 1, 1, 1000, 50ms);
  ASSERT_EQ(got.size(), 1u);
  // Asks for a minute; gets delivery + 100 ms.
  EXPECT_EQ(ch->touch(1, got[0].msg->id(), 60s), AckResult::ok);
  ASSERT_TRUE(eventually([&] { return ch->stats().timeout_count == 1; }, 5s));
  EXPECT_GE(Clock::now() - delivered, 100ms);
  EXPECT_EQ(ch->touch(1, got[0].msg->id(), 60s), AckResult::not_in_flight);
}

TEST_F(ChannelTest, PausedChannelHoldsMessagesUntilUnpause) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  ch->pause();
  EXPECT_TRUE(ch->paused());
  EXPECT_TRUE(ch->stats().paused);

  put_n(*ch, 1, 3);
  EXPECT_TRUE(take(*ch, 1, 10).empty());
  put_n(*ch, 4, 1);
  EXPECT_EQ(sub->wakes(), 0);  // paused: no wake on put
  EXPECT_EQ(ch->stats().depth, 4);

  ch->unpause();
  EXPECT_FALSE(ch->paused());
  EXPECT_EQ(sub->wakes(), 1);
  EXPECT_EQ(take(*ch, 1, 10).size(), 4u);
}

TEST_F(ChannelTest, PauseWithholdsEvenAlreadyGrantedCapacity) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 4);
  ASSERT_EQ(take(*ch, 1, 10, 2).size(), 2u);
  ch->pause();
  EXPECT_TRUE(take(*ch, 1, 10).empty());
  ch->unpause();
  EXPECT_EQ(take(*ch, 1, 10).size(), 2u);
}

class ChannelSpillTest : public ChannelTest {
 protected:
  static Options opts() {
    Options o = test_options();
    o.mem_queue_size = 2;
    return o;
  }
  ChannelSpillTest() : ChannelTest(opts()) {}
};

TEST_F(ChannelSpillTest, OverflowIsHandedOutAsDiskWritesAndReadBack) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);

  std::vector<MessageRef> msgs;
  for (int i = 1; i <= 5; ++i) msgs.push_back(make_message(i, "body-" + std::to_string(i)));
  DiskWrites spill;
  ch->put(msgs, 0ms, spill);
  ASSERT_EQ(spill.size(), 1u);
  ASSERT_EQ(spill[0].records.size(), 3u);
  EXPECT_TRUE(spill[0].done);
  // The records are the wire form of messages 3..5 with attempts 0.
  for (int i = 0; i < 3; ++i) {
    auto d = decode_message(spill[0].records[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->header.id, msgs[static_cast<std::size_t>(i) + 2]->id());
    EXPECT_EQ(d->header.attempts, 0);
    EXPECT_EQ(d->header.timestamp_ns, msgs[static_cast<std::size_t>(i) + 2]->timestamp());
    EXPECT_EQ(d->body, msgs[static_cast<std::size_t>(i) + 2]->body());
  }
  EXPECT_EQ(ch->stats().depth, 2);  // not written yet
  EXPECT_EQ(ch->stats().message_count, 5u);

  ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  auto s = ch->stats();
  EXPECT_EQ(s.backend_depth, 3);
  EXPECT_EQ(s.depth, 5);

  std::vector<QueuedMessage> got = take(*ch, 1, 10);
  // The disk part arrives on the worker pool; the client is woken for it.
  ASSERT_TRUE(eventually([&] {
    auto more = take(*ch, 1, 10);
    got.insert(got.end(), more.begin(), more.end());
    return got.size() >= 5;
  }));
  // The wake follows the refill that made the messages takeable, so the
  // polling above can see them first.
  EXPECT_TRUE(sub->wait_wake_after(0));
  std::set<std::string> want{"body-1", "body-2", "body-3", "body-4", "body-5"};
  auto b = bodies(got);
  EXPECT_EQ(std::set<std::string>(b.begin(), b.end()), want);
  EXPECT_EQ(b.size(), 5u);
  for (const auto& m : got) {
    EXPECT_EQ(m.attempts, 1);
    EXPECT_EQ(ch->finish(1, m.msg->id()), AckResult::ok);
  }
  s = ch->stats();
  EXPECT_EQ(s.depth, 0);
  EXPECT_EQ(s.backend_depth, 0);
}

TEST_F(ChannelSpillTest, RequeueIntoAFullMemoryQueueSpills) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);
  put_n(*ch, 2, 2);  // memory full again
  DiskWrites spill;
  ASSERT_EQ(ch->requeue(1, got[0].msg->id(), 0ms, spill), AckResult::ok);
  ASSERT_EQ(spill.size(), 1u);
  ASSERT_EQ(spill[0].records.size(), 1u);
  auto d = decode_message(spill[0].records[0]);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.id, got[0].msg->id());
  EXPECT_EQ(d->header.attempts, 1);  // attempts survive the trip to disk
  ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  EXPECT_EQ(ch->stats().depth, 3);
}

TEST_F(ChannelSpillTest, TimedOutMessageThatDoesNotFitGoesToDiskAndComesBack) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1, 1000, 50ms);
  ASSERT_EQ(got.size(), 1u);
  put_n(*ch, 2, 2);  // memory full
  // The timeout spills on the worker pool.
  ASSERT_TRUE(eventually([&] {
    auto s = ch->stats();
    return s.timeout_count == 1 && s.backend_depth == 1;
  }));
  std::vector<QueuedMessage> all;
  ASSERT_TRUE(eventually([&] {
    auto more = take(*ch, 1, 10);
    all.insert(all.end(), more.begin(), more.end());
    return all.size() >= 3;
  }));
  ASSERT_EQ(all.size(), 3u);
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const QueuedMessage& m) { return m.msg->id() == got[0].msg->id(); });
  ASSERT_NE(it, all.end());
  EXPECT_EQ(it->attempts, 2);
  EXPECT_EQ(it->msg->body(), "body-1");
  EXPECT_EQ(it->msg->timestamp(), got[0].msg->timestamp());
}

TEST_F(ChannelSpillTest, EphemeralChannelDropsOverflow) {
  auto ch = make_channel("c#ephemeral");
  EXPECT_TRUE(ch->ephemeral());
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  std::vector<MessageRef> msgs;
  for (int i = 1; i <= 5; ++i) msgs.push_back(make_message(i, "b"));
  DiskWrites spill;
  ch->put(msgs, 0ms, spill);
  EXPECT_TRUE(spill.empty());
  auto s = ch->stats();
  EXPECT_EQ(s.depth, 2);
  EXPECT_EQ(s.backend_depth, 0);
  EXPECT_EQ(s.message_count, 5u);
  auto got = take(*ch, 1, 10);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].msg->id(), msgs[0]->id());
  EXPECT_EQ(got[1].msg->id(), msgs[1]->id());
}

TEST_F(ChannelTest, ExistingDiskQueueIsDeliveredByANewChannel) {
  // What a restart looks like: records already in the channel's disk queue.
  {
    auto q = env_.open_backend("t:ch");
    ASSERT_TRUE(q);
    for (int i = 1; i <= 3; ++i) {
      auto m = make_message(i, "old-" + std::to_string(i));
      ASSERT_FALSE(q->put(encode_record(QueuedMessage{m, 2})));
    }
    ASSERT_FALSE(q->close());
  }
  auto ch = make_channel();
  EXPECT_EQ(ch->stats().depth, 3);
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  std::vector<QueuedMessage> got;
  ASSERT_TRUE(eventually([&] {
    auto more = take(*ch, 1, 10);
    got.insert(got.end(), more.begin(), more.end());
    return got.size() >= 3;
  }));
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got[static_cast<std::size_t>(i)].msg->body(), "old-" + std::to_string(i + 1));
    EXPECT_EQ(got[static_cast<std::size_t>(i)].attempts, 3);  // stored 2, +1 on delivery
  }
}

class ChannelConsumersTest : public ChannelTest {
 protected:
  static Options opts() {
    Options o = test_options();
    o.max_channel_consumers = 2;
    return o;
  }
  ChannelConsumersTest() : ChannelTest(opts()) {}
};

TEST_F(ChannelConsumersTest, MaxChannelConsumersIsEnforced) {
  auto ch = make_channel();
  auto s = std::make_shared<TestSubscriber>();
  EXPECT_EQ(ch->add_client(1, s), Channel::AddResult::ok);
  EXPECT_EQ(ch->add_client(2, s), Channel::AddResult::ok);
  EXPECT_EQ(ch->add_client(3, s), Channel::AddResult::too_many_consumers);
  EXPECT_EQ(ch->stats().clients, 2u);
  EXPECT_EQ(ch->remove_client(1), 1u);
  EXPECT_EQ(ch->add_client(3, s), Channel::AddResult::ok);
  EXPECT_EQ(ch->stats().clients, 2u);
  EXPECT_EQ(ch->remove_client(42), 2u);
}

TEST_F(ChannelTest, UnlimitedConsumersByDefault) {
  auto ch = make_channel();
  auto s = std::make_shared<TestSubscriber>();
  for (ClientId id = 1; id <= 50; ++id) EXPECT_EQ(ch->add_client(id, s), Channel::AddResult::ok);
  EXPECT_EQ(ch->stats().clients, 50u);
}

TEST_F(ChannelTest, EmptyDropsQueuedInFlightAndDeferred) {
  env_.options.mem_queue_size = 2;
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 2);
  auto got = take(*ch, 1, 2);
  ASSERT_EQ(got.size(), 2u);
  DiskWrites spill;
  ASSERT_EQ(ch->requeue(1, got[1].msg->id(), 1h, spill), AckResult::ok);
  put_n(*ch, 3, 5);  // 2 in memory, 3 on disk
  auto s = ch->stats();
  EXPECT_EQ(s.in_flight, 1);
  EXPECT_EQ(s.deferred, 1);
  EXPECT_EQ(s.depth, 5);
  EXPECT_EQ(s.backend_depth, 3);

  EXPECT_FALSE(ch->empty());
  s = ch->stats();
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.deferred, 0);
  EXPECT_EQ(s.depth, 0);
  EXPECT_EQ(s.backend_depth, 0);
  EXPECT_EQ(ch->finish(1, got[0].msg->id()), AckResult::not_in_flight);
  // The client's window is free again and nothing old comes back.
  EXPECT_TRUE(take(*ch, 1, 2).empty());
  put_n(*ch, 100, 2);
  auto fresh = take(*ch, 1, 2);
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[0].msg->body(), "body-100");
}

TEST_F(ChannelTest, CloseForShutdownWritesMemoryInFlightAndDeferredToDisk) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  auto msgs = put_n(*ch, 1, 5);
  auto got = take(*ch, 1, 2);
  ASSERT_EQ(got.size(), 2u);
  DiskWrites spill;
  ASSERT_EQ(ch->requeue(1, got[1].msg->id(), 1h, spill), AckResult::ok);
  put_n(*ch, 6, 1, 1h);  // deferred publish
  auto s = ch->stats();
  EXPECT_EQ(s.in_flight, 1);
  EXPECT_EQ(s.deferred, 2);
  EXPECT_EQ(s.depth, 3);

  ch->close_for_shutdown();
  EXPECT_EQ(ch->add_client(2, sub), Channel::AddResult::exiting);
  std::vector<QueuedMessage> none;
  ch->take(1, 10, 10, 0, kLongTimeout, none);
  EXPECT_TRUE(none.empty());

  auto q = env_.open_backend("t:ch");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->depth(), 6);
  std::map<std::string, std::uint16_t> attempts;  // id -> stored attempts
  std::map<std::string, std::string> body;
  while (auto r = q->try_read()) {
    auto d = decode_message(*r);
    ASSERT_TRUE(d);
    attempts[id_string(d->header.id)] = d->header.attempts;
    body[id_string(d->header.id)] = std::string(d->body);
  }
  ASSERT_EQ(attempts.size(), 6u);
  EXPECT_EQ(attempts[id_string(got[0].msg->id())], 1);      // in flight
  EXPECT_EQ(attempts[id_string(got[1].msg->id())], 1);      // requeued with delay
  EXPECT_EQ(attempts[id_string(msgs[2]->id())], 0);         // memory
  EXPECT_EQ(attempts[id_string(format_message_id(6))], 0);  // deferred publish
  EXPECT_EQ(body[id_string(format_message_id(6))], "body-6");
}

TEST_F(ChannelTest, EphemeralCloseForShutdownWritesNothing) {
  auto ch = make_channel("e#ephemeral");
  put_n(*ch, 1, 3);
  ch->close_for_shutdown();
  EXPECT_FALSE(std::filesystem::exists(env_.dir.path() / "t:e#ephemeral.diskqueue.meta.dat"));
}

TEST_F(ChannelTest, RemoveClosesClientsAndDeletesFiles) {
  env_.options.mem_queue_size = 0;
  auto ch = make_channel();
  auto a = std::make_shared<TestSubscriber>();
  auto b = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, a), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, b), Channel::AddResult::ok);
  put_n(*ch, 1, 3);
  auto q_path = env_.dir.path() / "t:ch.diskqueue.000000.dat";
  ASSERT_TRUE(std::filesystem::exists(q_path));
  ch->remove();
  EXPECT_TRUE(a->closed());
  EXPECT_TRUE(b->closed());
  EXPECT_FALSE(std::filesystem::exists(q_path));
  EXPECT_EQ(ch->stats().clients, 0u);
  EXPECT_EQ(ch->add_client(3, a), Channel::AddResult::exiting);
}

TEST_F(ChannelTest, DeadSubscriberIsNotWoken) {
  auto ch = make_channel();
  {
    auto gone = std::make_shared<TestSubscriber>();
    ASSERT_EQ(ch->add_client(1, gone), Channel::AddResult::ok);
    EXPECT_TRUE(take(*ch, 1, 1).empty());
  }
  put_n(*ch, 1, 1);  // the weak_ptr has expired: no call, no crash
  EXPECT_EQ(ch->stats().depth, 1);
}

TEST_F(ChannelTest, StatsCountEverything) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  put_n(*ch, 1, 4);
  auto got = take(*ch, 1, 3);
  ASSERT_EQ(got.size(), 3u);
  DiskWrites spill;
  ASSERT_EQ(ch->requeue(1, got[0].msg->id(), 0ms, spill), AckResult::ok);
  ASSERT_EQ(ch->requeue(1, got[1].msg->id(), 1h, spill), AckResult::ok);
  ch->pause();
  auto s = ch->stats();
  EXPECT_EQ(s.message_count, 4u);
  EXPECT_EQ(s.requeue_count, 2u);
  EXPECT_EQ(s.timeout_count, 0u);
  EXPECT_EQ(s.in_flight, 1);
  EXPECT_EQ(s.deferred, 1);
  EXPECT_EQ(s.depth, 2);
  EXPECT_EQ(s.backend_depth, 0);
  EXPECT_EQ(s.clients, 1u);
  EXPECT_TRUE(s.paused);
  EXPECT_EQ(ch->name(), "ch");
  EXPECT_EQ(ch->topic_name(), "t");
  EXPECT_FALSE(ch->ephemeral());
}

TEST_F(ChannelTest, ManyMessagesManyClientsEachDeliveredOnce) {
  env_.options.mem_queue_size = 50;
  auto ch = make_channel();
  std::vector<std::shared_ptr<TestSubscriber>> subs;
  for (ClientId id = 1; id <= 4; ++id) {
    subs.push_back(std::make_shared<TestSubscriber>());
    ASSERT_EQ(ch->add_client(id, subs.back()), Channel::AddResult::ok);
  }
  constexpr int kCount = 1000;
  put_n(*ch, 1, kCount);  // 950 go to disk
  std::set<std::string> seen;
  int dups = 0;
  ASSERT_TRUE(eventually([&] {
    for (ClientId id = 1; id <= 4; ++id) {
      for (auto& m : take(*ch, id, 7)) {
        if (!seen.insert(id_string(m.msg->id())).second) ++dups;
        EXPECT_EQ(ch->finish(id, m.msg->id()), AckResult::ok);
      }
    }
    return seen.size() >= kCount;
  }));
  EXPECT_EQ(dups, 0);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kCount));
  auto s = ch->stats();
  EXPECT_EQ(s.depth, 0);
  EXPECT_EQ(s.in_flight, 0);
}

}  // namespace
}  // namespace nsq::nsqd

namespace nsq::nsqd {
namespace {

// A log sink whose first line containing `trigger` blocks the logging thread
// until released: freezes a disk-pool job at a log call, which makes one
// thread interleaving deterministic.
class BlockingSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit BlockingSink(std::string trigger) : trigger_(std::move(trigger)) {}
  bool wait_entered() {
    std::unique_lock lock(state_mu_);
    return cv_.wait_for(lock, 5s, [&] { return entered_; });
  }
  void release() {
    {
      std::lock_guard lock(state_mu_);
      released_ = true;
    }
    cv_.notify_all();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    if (text.find(trigger_) == std::string_view::npos) return;
    std::unique_lock lock(state_mu_);
    if (entered_) return;
    entered_ = true;
    cv_.notify_all();
    cv_.wait_for(lock, 5s, [&] { return released_; });
  }
  void flush_() override {}

 private:
  const std::string trigger_;
  std::mutex state_mu_;
  std::condition_variable cv_;
  bool entered_ = false, released_ = false;
};

TEST(ChannelShutdown, ShutdownDuringARefillLosesNothing) {
  constexpr int kCount = 300;
  auto sink = std::make_shared<BlockingSink>("failed to decode");
  auto log = std::make_shared<spdlog::logger>("blocking", sink);
  CoreEnv env(test_options(), log);
  // Min size 1 so that a short (undecodable) record can be stored first.
  auto qopts = env.queue_options("t:c");
  qopts.min_msg_size = 1;
  std::shared_ptr<diskqueue::DiskQueue> backend;
  {
    auto q = diskqueue::DiskQueue::open(qopts);
    ASSERT_TRUE(q);
    backend = std::move(*q);
  }
  ASSERT_FALSE(backend->put("short"));
  for (int i = 1; i <= kCount; ++i) {
    ASSERT_FALSE(
        backend->put(encode_record(QueuedMessage{make_message(i, "b" + std::to_string(i)), 0})));
  }
  auto ch = std::make_shared<Channel>("t", "c", env.ctx, backend);
  backend.reset();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  std::vector<QueuedMessage> none;
  ch->take(1, 1, 1, 0, kLongTimeout, none);  // starts the refill
  ASSERT_TRUE(none.empty());
  ASSERT_TRUE(sink->wait_entered());  // the refill holds 256 records
  ch->close_for_shutdown();
  sink->release();
  eventually([&] { return sub->wakes() > 0; }, 1s);  // the refill has finished
  auto q = diskqueue::DiskQueue::open(qopts);
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), kCount);
}

}  // namespace
}  // namespace nsq::nsqd
