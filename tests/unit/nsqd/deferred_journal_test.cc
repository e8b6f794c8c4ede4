// The journal of deferred due times (--sync-publish; core/deferred_journal.h)
// on real disk queues: what a reopen reads back after a compaction, and a
// durable channel that keeps its deferred messages' times when it is opened
// again without a clean shutdown (as after a crash).
#include "core/deferred_journal.h"

#include <gtest/gtest.h>

#include "channel_fixture.h"

namespace nsq::nsqd {
namespace {

MessageId id_of(const std::string& s) {
  MessageId id{};
  id.fill('0');
  std::copy(s.begin(), s.end(), id.end() - static_cast<std::ptrdiff_t>(s.size()));
  return id;
}

class DeferredJournalTest : public ChannelTest {
 protected:
  static Options opts() {
    Options o = coretest::test_options();
    o.sync_publish = true;
    return o;
  }
  DeferredJournalTest() : ChannelTest(opts()) {}

  // As nsqd opens them with --sync-publish: reads are committed by hand.
  std::shared_ptr<diskqueue::DiskQueue> open_queue(const std::string& name) {
    auto o = env_.queue_options(name);
    o.manual_read_commit = true;
    auto q = diskqueue::DiskQueue::open(std::move(o));
    EXPECT_TRUE(q);
    return q ? std::shared_ptr<diskqueue::DiskQueue>(std::move(*q)) : nullptr;
  }

  std::shared_ptr<Channel> durable_channel() {
    return std::make_shared<Channel>("t", "c", env_.ctx, open_queue("t:c"),
                                     open_queue("t:c:deferred"));
  }

  static void write(DeferredJournal& j, std::vector<deferred_file::Entry> entries) {
    DiskWrites w{j.append(entries)};
    ASSERT_FALSE(DiskWriter(nullptr).write(w));
  }

  static std::vector<std::string> ids(const std::vector<deferred_file::Entry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.emplace_back(e.id.data(), e.id.size());
    return out;
  }
};

TEST_F(DeferredJournalTest, ACompactionKeepsTheLiveEntriesAndWhatCameAfterItsMark) {
  {
    DeferredJournal j(open_queue("j"));
    EXPECT_TRUE(j.read_all().empty());
    write(j, {{id_of("1"), 1800000000001}, {id_of("2"), 1800000000002}});
    write(j, {{id_of("3"), 1800000000003}});
    const auto mark = j.end();
    write(j, {{id_of("4"), 1800000000004}});  // a DPUB after the snapshot
    ASSERT_FALSE(j.compact(std::vector<deferred_file::Entry>{{id_of("2"), 1800000000022}}, mark));
    ASSERT_FALSE(j.queue()->close());
  }
  DeferredJournal again(open_queue("j"));
  const auto entries = again.read_all();
  EXPECT_EQ(ids(entries), (std::vector<std::string>{std::string(id_of("4").data(), 16),
                                                    std::string(id_of("2").data(), 16)}));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].due_unix_ms, 1800000000022);
}

TEST_F(DeferredJournalTest, LinesAreNeverShorterThanTheQueuesSmallestRecord) {
  DeferredJournal j(open_queue("j"));
  const DiskWrite w = j.append(std::vector<deferred_file::Entry>{{id_of("1"), 5}});
  ASSERT_EQ(w.records.size(), 1u);
  EXPECT_GE(w.records[0].size(), kMessageHeaderSize);
  EXPECT_EQ(w.durability, diskqueue::Durability::fsync);
  const auto back = deferred_file::decode(w.records[0]);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].due_unix_ms, 5);
}

// No close_for_shutdown: the channel and its queues are dropped as a
// SIGKILL leaves them (records and journal lines written, no side file).
TEST_F(DeferredJournalTest, ADurableChannelKeepsDueTimesWithoutACleanShutdown) {
  const auto before = std::chrono::system_clock::now();
  {
    auto ch = durable_channel();
    put_n(*ch, 1, 2, 600s);  // DPUB, 10 minutes
    put_n(*ch, 3, 1);
    auto sub = std::make_shared<coretest::TestSubscriber>();
    ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
    std::vector<QueuedMessage> got;
    ASSERT_TRUE(coretest::eventually(
        [&] {
          for (auto& m : take(*ch, 1, 10)) got.push_back(std::move(m));
          return !got.empty();
        },
        5s));
    ASSERT_EQ(bodies(got), std::vector<std::string>{"body-3"});
    DiskWrites spill;
    ASSERT_EQ(ch->requeue(1, got[0].msg->id(), 600s, spill), Channel::AckResult::ok);  // REQ
    ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  }
  EXPECT_FALSE(std::filesystem::exists(env_.dir.path() / "t:c.diskqueue.deferred.dat"));

  auto ch = durable_channel();
  auto sub = std::make_shared<coretest::TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  ASSERT_TRUE(coretest::eventually(
      [&] {
        EXPECT_TRUE(take(*ch, 1, 10).empty()) << "delivered before its time";
        return ch->stats().deferred == 3;
      },
      5s));
  const auto peeked = ch->peek(PeekState::deferred, 10);
  ASSERT_EQ(peeked.size(), 3u);
  const auto due_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>((before + 600s).time_since_epoch())
          .count();
  for (const auto& p : peeked) {
    ASSERT_TRUE(p.due);
    EXPECT_NEAR(static_cast<double>(*p.due), static_cast<double>(due_ns), 5e9) << p.body;
  }
}

// Once it holds several times what is still deferred, the journal is
// compacted: a reopen reads the live entries, not every line ever written.
TEST_F(DeferredJournalTest, ADurableChannelCompactsItsJournal) {
  {
    auto ch = durable_channel();
    auto sub = std::make_shared<coretest::TestSubscriber>();
    ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
    put_n(*ch, 1, 5000, 1ms);
    std::size_t finished = 0;
    ASSERT_TRUE(coretest::eventually(
        [&] {
          for (auto& m : take(*ch, 1, 1000)) {
            EXPECT_EQ(ch->finish(1, m.msg->id()), Channel::AckResult::ok);
            ++finished;
          }
          return finished == 5000;
        },
        20s));
    put_n(*ch, 5001, 1, 600s);  // the one still deferred: a compaction starts
    ch->close_for_shutdown();   // waits for it
  }
  std::filesystem::remove(env_.dir.path() / "t:c.diskqueue.deferred.dat");
  DeferredJournal j(open_queue("t:c:deferred"));
  const auto entries = j.read_all();
  EXPECT_LE(entries.size(), 2u) << "compacted: the live entry, perhaps the last line again";
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(std::string(entries.back().id.data(), 16),
            std::string(coretest::make_message(5001, "")->id().data(), 16));
}

}  // namespace
}  // namespace nsq::nsqd
