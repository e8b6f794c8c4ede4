#include "core/topic.h"

#include <gtest/gtest.h>

#include <charconv>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core_test_env.h"
#include "nsq/names.h"
#include "nsqd/errc.h"

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;
using coretest::CoreEnv;
using coretest::eventually;
using coretest::id_string;
using coretest::test_options;
using coretest::TestSubscriber;

constexpr std::chrono::nanoseconds kLongTimeout = 60s;
constexpr std::int64_t kNodeId = 7;

std::uint64_t parse_id(const MessageId& id) {
  std::uint64_t v = 0;
  std::from_chars(id.data(), id.data() + id.size(), v, 16);
  return v;
}

class TopicTest : public ::testing::Test {
 protected:
  explicit TopicTest(Options o = test_options()) : env_(std::move(o)) {}

  std::shared_ptr<Topic> make_topic(const std::string& name = "t") {
    std::shared_ptr<diskqueue::DiskQueue> backend;
    if (!is_ephemeral(name)) backend = env_.open_backend(name);
    return std::make_shared<Topic>(name, kNodeId, env_.ctx, std::move(backend));
  }

  // Publishes "<prefix><i>" for i in [first, first + n) and performs the spill.
  void publish(Topic& t, const std::string& prefix, int first, int n,
               std::chrono::milliseconds defer = 0ms) {
    std::vector<std::string> owned;
    for (int i = first; i < first + n; ++i) owned.push_back(prefix + std::to_string(i));
    std::vector<std::string_view> bodies(owned.begin(), owned.end());
    DiskWrites spill;
    ASSERT_FALSE(t.publish(bodies, defer, spill));
    ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  }

  // Subscribes client `id` and takes (finishing each) until `n` messages came.
  static std::vector<QueuedMessage> consume(Channel& ch, ClientId id, std::size_t n,
                                            std::chrono::milliseconds timeout = 5s) {
    auto sub = std::make_shared<TestSubscriber>();
    EXPECT_EQ(ch.add_client(id, sub), Channel::AddResult::ok);
    std::vector<QueuedMessage> got;
    eventually(
        [&] {
          std::vector<QueuedMessage> more;
          ch.take(id, 100, 100, 0, kLongTimeout, more);
          for (auto& m : more) {
            EXPECT_EQ(ch.finish(id, m.msg->id()), Channel::AckResult::ok);
            got.push_back(std::move(m));
          }
          return got.size() >= n;
        },
        timeout);
    ch.remove_client(id);
    return got;
  }

  static std::vector<std::string> bodies(const std::vector<QueuedMessage>& ms) {
    std::vector<std::string> out;
    for (const auto& m : ms) out.emplace_back(m.msg->body());
    return out;
  }

  static std::vector<std::string> names(const std::string& prefix, int first, int n) {
    std::vector<std::string> out;
    for (int i = first; i < first + n; ++i) out.push_back(prefix + std::to_string(i));
    return out;
  }

  CoreEnv env_;
};

TEST_F(TopicTest, PublishFansOutToEveryChannelSharingOneMessage) {
  auto t = make_topic();
  auto a = t->get_or_create_channel("a");
  auto b = t->get_or_create_channel("b");
  ASSERT_TRUE(a && b);
  publish(*t, "m", 0, 3);
  auto from_a = consume(*a, 1, 3);
  auto from_b = consume(*b, 2, 3);
  ASSERT_EQ(from_a.size(), 3u);
  ASSERT_EQ(from_b.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(from_a[i].msg->id(), from_b[i].msg->id());
    EXPECT_EQ(from_a[i].msg->body(), from_b[i].msg->body());
    EXPECT_EQ(from_a[i].msg->timestamp(), from_b[i].msg->timestamp());
    // One message block, not a copy per channel.
    EXPECT_EQ(&*from_a[i].msg, &*from_b[i].msg);
  }
  EXPECT_EQ(bodies(from_a), names("m", 0, 3));
  auto s = t->stats();
  EXPECT_EQ(s.message_count, 3u);
  EXPECT_EQ(s.message_bytes, 6u);
  EXPECT_EQ(s.depth, 0);
}

TEST_F(TopicTest, BacklogWithoutChannelsIsDrainedIntoTheFirstChannel) {
  auto t = make_topic();
  publish(*t, "early", 0, 5);
  EXPECT_EQ(t->stats().depth, 5);
  EXPECT_EQ(t->channel_count(), 0u);

  bool created = false;
  auto ch = t->get_or_create_channel("first", &created);
  ASSERT_TRUE(ch);
  EXPECT_TRUE(created);
  ASSERT_TRUE(eventually([&] { return ch->stats().depth == 5 && t->stats().depth == 0; }));
  EXPECT_EQ(ch->stats().message_count, 5u);

  // A channel created afterwards sees only what comes later.
  auto second = t->get_or_create_channel("second");
  publish(*t, "late", 0, 1);
  EXPECT_EQ(second->stats().depth, 1);
  EXPECT_EQ(ch->stats().depth, 6);
  auto got = consume(*ch, 1, 6);
  auto want = names("early", 0, 5);
  want.push_back("late0");
  EXPECT_EQ(bodies(got), want);
}

class TopicSmallMemTest : public TopicTest {
 protected:
  static Options opts() {
    Options o = test_options();
    o.mem_queue_size = 10;
    return o;
  }
  TopicSmallMemTest() : TopicTest(opts()) {}
};

TEST_F(TopicSmallMemTest, BacklogOverflowGoesToTheTopicDiskQueueAndIsDrained) {
  auto t = make_topic();
  {
    std::vector<std::string> owned = names("x", 0, 30);
    std::vector<std::string_view> b(owned.begin(), owned.end());
    DiskWrites spill;
    ASSERT_FALSE(t->publish(b, 0ms, spill));
    ASSERT_FALSE(spill.empty());
    std::vector<std::string> spilled;
    for (const auto& w : spill) {
      EXPECT_TRUE(w.done);
      for (const auto& r : w.records) {
        auto d = decode_message(r);
        ASSERT_TRUE(d);
        spilled.emplace_back(d->body);
      }
    }
    EXPECT_EQ(spilled, names("x", 10, 20));  // the first 10 stay in memory
    ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  }
  auto s = t->stats();
  EXPECT_EQ(s.depth, 30);
  EXPECT_EQ(s.backend_depth, 20);

  auto ch = t->get_or_create_channel("c");
  auto got = consume(*ch, 1, 30);
  auto b = bodies(got);
  EXPECT_EQ(b.size(), 30u);
  auto want = names("x", 0, 30);
  EXPECT_EQ(std::set<std::string>(b.begin(), b.end()),
            std::set<std::string>(want.begin(), want.end()));
  EXPECT_TRUE(eventually([&] { return t->stats().depth == 0; }));
  EXPECT_TRUE(env_.disk_errors().empty());
}

TEST_F(TopicSmallMemTest, OverflowOfOnePublishIsOneDiskWrite) {
  auto t = make_topic();
  std::vector<std::string> owned = names("x", 0, 30);
  std::vector<std::string_view> b(owned.begin(), owned.end());
  DiskWrites spill;
  ASSERT_FALSE(t->publish(b, 0ms, spill));
  ASSERT_EQ(spill.size(), 1u);
  EXPECT_EQ(spill[0].records.size(), 20u);
  ASSERT_FALSE(DiskWriter(nullptr).write(spill));
}

TEST_F(TopicSmallMemTest, PublishingWhileDrainingLosesAndDuplicatesNothing) {
  auto t = make_topic();
  publish(*t, "before", 0, 500);
  auto ch = t->get_or_create_channel("c");
  for (int i = 0; i < 20; ++i) publish(*t, "during", i * 25, 25);
  auto got = consume(*ch, 1, 1000);
  std::set<std::string> seen;
  for (const auto& m : got) EXPECT_TRUE(seen.insert(std::string(m.msg->body())).second);
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_TRUE(eventually([&] { return t->stats().depth == 0; }));
}

TEST_F(TopicTest, PausedTopicHoldsMessagesUntilUnpause) {
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  t->pause();
  EXPECT_TRUE(t->paused());
  EXPECT_TRUE(t->stats().paused);
  publish(*t, "p", 0, 3);
  EXPECT_EQ(ch->stats().depth, 0);
  EXPECT_EQ(t->stats().depth, 3);

  t->unpause();
  EXPECT_FALSE(t->paused());
  ASSERT_TRUE(eventually([&] { return ch->stats().depth == 3; }));
  EXPECT_EQ(t->stats().depth, 0);
  EXPECT_EQ(bodies(consume(*ch, 1, 3)), names("p", 0, 3));
}

class TopicNoMemTest : public TopicTest {
 protected:
  static Options opts() {
    Options o = test_options();
    o.mem_queue_size = 0;
    return o;
  }
  TopicNoMemTest() : TopicTest(opts()) {}
};

TEST_F(TopicNoMemTest, EverythingGoesThroughTheChannelDiskQueueInOrder) {
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  {
    std::vector<std::string> owned = names("d", 0, 20);
    std::vector<std::string_view> b(owned.begin(), owned.end());
    DiskWrites spill;
    ASSERT_FALSE(t->publish(b, 0ms, spill));
    ASSERT_EQ(spill.size(), 1u);
    EXPECT_EQ(spill[0].records.size(), 20u);
    EXPECT_EQ(ch->stats().depth, 0);
    ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  }
  EXPECT_EQ(ch->stats().backend_depth, 20);
  EXPECT_EQ(bodies(consume(*ch, 1, 20)), names("d", 0, 20));
}

TEST_F(TopicNoMemTest, WithoutChannelsEverythingGoesThroughTheTopicDiskQueue) {
  auto t = make_topic();
  publish(*t, "d", 0, 20);
  EXPECT_EQ(t->stats().backend_depth, 20);
  auto a = t->get_or_create_channel("a");
  EXPECT_EQ(bodies(consume(*a, 1, 20)), names("d", 0, 20));
  EXPECT_TRUE(eventually([&] { return t->stats().depth == 0; }));
}

TEST_F(TopicTest, IdsAreUniqueIncreasingAndCarryTheNodeId) {
  env_.options.mem_queue_size = 10000;
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  for (int i = 0; i < 30; ++i) publish(*t, "i", i * 100, 100);
  auto got = consume(*ch, 1, 3000);
  ASSERT_EQ(got.size(), 3000u);
  std::uint64_t last = 0;
  for (const auto& m : got) {
    std::uint64_t id = parse_id(m.msg->id());
    EXPECT_GT(id, last);
    last = id;
    EXPECT_EQ((id >> 12) & 0x3ff, static_cast<std::uint64_t>(kNodeId));
  }
  EXPECT_EQ(bodies(got), names("i", 0, 3000));
}

TEST_F(TopicTest, DeferredPublishReachesTheChannelAfterTheDelay) {
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  auto published = Clock::now();
  publish(*t, "late", 0, 1, 50ms);
  EXPECT_EQ(ch->stats().deferred, 1);
  std::vector<QueuedMessage> out;
  int seen = sub->wakes();
  ch->take(1, 1, 1, 0, kLongTimeout, out);
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(sub->wait_wake_after(seen));
  EXPECT_GE(Clock::now() - published, 50ms);
  ch->take(1, 1, 1, 0, kLongTimeout, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].msg->body(), "late0");
}

TEST_F(TopicTest, DeferredPublishWithoutChannelsKeepsItsDelay) {
  auto t = make_topic();
  publish(*t, "late", 0, 1, 1h);
  auto ch = t->get_or_create_channel("c");
  ASSERT_TRUE(eventually([&] { return ch->stats().deferred == 1; }));
  EXPECT_EQ(ch->stats().depth, 0);
}

TEST_F(TopicTest, GetOrCreateChannelAndTopologyNotifications) {
  auto t = make_topic();
  EXPECT_EQ(t->name(), "t");
  EXPECT_FALSE(t->ephemeral());
  int before = env_.topology_changes.load();
  bool created = false;
  auto a = t->get_or_create_channel("a", &created);
  EXPECT_TRUE(created);
  EXPECT_EQ(env_.topology_changes.load(), before + 1);
  auto again = t->get_or_create_channel("a", &created);
  EXPECT_FALSE(created);
  EXPECT_EQ(again, a);
  EXPECT_EQ(env_.topology_changes.load(), before + 1);
  auto e = t->get_or_create_channel("e#ephemeral", &created);
  EXPECT_TRUE(created);
  EXPECT_TRUE(e->ephemeral());
  EXPECT_EQ(env_.topology_changes.load(), before + 1);  // ephemeral: not persisted
  EXPECT_EQ(t->find_channel("a"), a);
  EXPECT_EQ(t->find_channel("nope"), nullptr);
  EXPECT_EQ(t->channel_count(), 2u);
  EXPECT_EQ(t->channels().size(), 2u);
}

TEST_F(TopicTest, DeleteChannelClosesClientsAndRemovesFiles) {
  env_.options.mem_queue_size = 0;
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  publish(*t, "x", 0, 3);
  auto seg = env_.dir.path() / "t:c.diskqueue.000000.dat";
  ASSERT_TRUE(std::filesystem::exists(seg));
  int before = env_.topology_changes.load();
  EXPECT_TRUE(t->delete_channel("c"));
  EXPECT_TRUE(sub->closed());
  EXPECT_FALSE(std::filesystem::exists(seg));
  EXPECT_EQ(env_.topology_changes.load(), before + 1);
  EXPECT_EQ(t->channel_count(), 0u);
  EXPECT_FALSE(t->delete_channel("c"));
  // Later messages wait in the topic again.
  publish(*t, "y", 0, 1);
  EXPECT_EQ(t->stats().depth, 1);
}

TEST_F(TopicTest, DeleteChannelIfUnusedOnlyDeletesEphemeralChannelsWithoutClients) {
  auto t = make_topic();
  auto durable = t->get_or_create_channel("d");
  auto eph = t->get_or_create_channel("e#ephemeral");
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(eph->add_client(1, sub), Channel::AddResult::ok);
  t->delete_channel_if_unused("d");
  t->delete_channel_if_unused("e#ephemeral");
  t->delete_channel_if_unused("missing");
  EXPECT_EQ(t->channel_count(), 2u);
  eph->remove_client(1);
  t->delete_channel_if_unused("e#ephemeral");
  EXPECT_EQ(t->channel_count(), 1u);
  EXPECT_EQ(t->find_channel("e#ephemeral"), nullptr);
  EXPECT_FALSE(sub->closed());  // it had already left
}

TEST_F(TopicTest, CloseForShutdownPersistsTheBacklogAndTheChannels) {
  auto t = make_topic();
  publish(*t, "backlog", 0, 4);
  t->close_for_shutdown();
  DiskWrites spill;
  std::vector<std::string_view> one{"late"};
  EXPECT_EQ(t->publish(one, 0ms, spill), make_error_code(errc::exiting));
  auto q = env_.open_backend("t");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->depth(), 4);
  std::vector<std::string> got;
  while (auto r = q->try_read()) {
    auto d = decode_message(*r);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->header.attempts, 0);
    got.emplace_back(d->body);
  }
  EXPECT_EQ(got, names("backlog", 0, 4));
}

TEST_F(TopicTest, CloseForShutdownClosesChannelsToo) {
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  publish(*t, "m", 0, 3);
  t->close_for_shutdown();
  auto q = env_.open_backend("t:c");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->depth(), 3);
}

TEST_F(TopicTest, RemovedTopicRefusesPublishesAndChannels) {
  auto t = make_topic();
  auto ch = t->get_or_create_channel("c");
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  publish(*t, "m", 0, 2);
  t->remove();
  EXPECT_TRUE(sub->closed());
  EXPECT_EQ(t->channel_count(), 0u);
  DiskWrites spill;
  std::vector<std::string_view> one{"x"};
  EXPECT_EQ(t->publish(one, 0ms, spill), make_error_code(errc::exiting));
  EXPECT_EQ(t->get_or_create_channel("d"), nullptr);
}

TEST_F(TopicTest, EmptyDropsTheBacklog) {
  env_.options.mem_queue_size = 3;
  auto t = make_topic();
  publish(*t, "m", 0, 10);
  EXPECT_EQ(t->stats().depth, 10);
  EXPECT_FALSE(t->empty());
  EXPECT_EQ(t->stats().depth, 0);
  auto ch = t->get_or_create_channel("c");
  publish(*t, "n", 0, 1);
  EXPECT_EQ(bodies(consume(*ch, 1, 1)), names("n", 0, 1));
  EXPECT_EQ(ch->stats().depth, 0);
}

TEST_F(TopicTest, EphemeralTopicDropsOverflowWhileWithoutChannels) {
  env_.options.mem_queue_size = 2;
  auto t = make_topic("e#ephemeral");
  EXPECT_TRUE(t->ephemeral());
  std::vector<std::string> owned = names("e", 0, 5);
  std::vector<std::string_view> b(owned.begin(), owned.end());
  DiskWrites spill;
  ASSERT_FALSE(t->publish(b, 0ms, spill));
  EXPECT_TRUE(spill.empty());
  EXPECT_EQ(t->stats().depth, 2);
  EXPECT_EQ(t->stats().message_count, 5u);
}

}  // namespace
}  // namespace nsq::nsqd

namespace nsq::nsqd {
namespace {

// Writes n records straight into the disk queue `name` (a restart's leftovers).
void prefill(CoreEnv& env, const std::string& name, int n) {
  auto q = env.open_backend(name);
  ASSERT_TRUE(q);
  std::vector<std::string> recs;
  for (int i = 0; i < n; ++i) {
    recs.push_back(encode_record(QueuedMessage{
        coretest::make_message(static_cast<std::uint64_t>(i + 1), "r" + std::to_string(i)), 0}));
  }
  std::vector<std::string_view> views(recs.begin(), recs.end());
  ASSERT_FALSE(q->put_batch(views));
  ASSERT_FALSE(q->close());
}

// Stands in for a client whose wake() is slow: the first call blocks until
// released, freezing the calling disk-pool thread at that point (a way to
// make a thread interleaving deterministic, not a well-behaved Subscriber).
class BlockingSubscriber : public Subscriber {
 public:
  void wake() override {
    std::unique_lock lock(mu_);
    if (entered_) return;
    entered_ = true;
    cv_.notify_all();
    cv_.wait_for(lock, 5s, [&] { return released_; });
  }
  void close_for_delete() override {}
  bool wait_entered() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return entered_; });
  }
  void release() {
    {
      std::lock_guard lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false, released_ = false;
};

TEST(TopicShutdown, ShutdownDuringADrainLosesNothing) {
  constexpr int kCount = 1000;
  Options o = test_options();
  o.mem_queue_size = 10;
  CoreEnv env(o);
  prefill(env, "t", kCount);
  auto t = std::make_shared<Topic>("t", kNodeId, env.ctx, env.open_backend("t"));
  ASSERT_EQ(t->stats().depth, kCount);
  t->pause();  // no drain yet
  auto ch = t->get_or_create_channel("c");
  auto sub = std::make_shared<BlockingSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  std::vector<QueuedMessage> none;
  ch->take(1, 1, 1, 0, kLongTimeout, none);  // waiting: the first put wakes it
  ASSERT_TRUE(none.empty());
  t->unpause();  // the drain reads 256 records, puts them, blocks in wake()
  ASSERT_TRUE(sub->wait_entered());
  t->close_for_shutdown();
  sub->release();
  // The drain's channel spill now fails (reported as a disk error).
  eventually([&] { return !env.disk_errors().empty(); }, 1s);
  auto tq = env.open_backend("t");
  auto cq = env.open_backend("t:c");
  ASSERT_TRUE(tq && cq);
  EXPECT_EQ(tq->depth() + cq->depth(), kCount)
      << "topic " << tq->depth() << " channel " << cq->depth();
}

}  // namespace
}  // namespace nsq::nsqd
