// The leader side of the Replicator over its real log in a temporary
// directory, without etcd: followers are played by this test through the
// fetch wire format (cluster/replication_wire.h), as a Fetcher speaks it.
// What it checks: when a follower joins the in-sync set, and what a node
// that starts leading keeps of a former leader's delivery progress.
#include "cluster/replicator.h"

#include <gtest/gtest.h>

#include <spdlog/sinks/null_sink.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

#include "cluster/log_record.h"
#include "nsq/message.h"
#include "testutil/temp_dir.h"

namespace nsq::nsqd::cluster {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<spdlog::logger> quiet() {
  return std::make_shared<spdlog::logger>("replicator",
                                          std::make_shared<spdlog::sinks::null_sink_mt>());
}

// The in-sync sets the replicator asked etcd for.
class IsrRequests {
 public:
  void add(std::vector<std::string> isr) {
    std::lock_guard lock(mu_);
    asked_.push_back(std::move(isr));
    cv_.notify_all();
  }
  bool await(const std::vector<std::string>& isr, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      return std::find(asked_.begin(), asked_.end(), isr) != asked_.end();
    });
  }
  std::size_t count() const {
    std::lock_guard lock(mu_);
    return asked_.size();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::vector<std::string>> asked_;
};

struct Node {
  explicit Node(const std::filesystem::path& dir, int min_insync = 2)
      : replicator(
            [&] {
              Replicator::Settings s;
              s.data_dir = dir;
              s.node_id = "self";
              s.min_insync = min_insync;
              s.lag_max = 1000ms;
              return s;
            }(),
            Replicator::Hooks{[this](const std::string&, std::uint32_t,
                                     std::vector<std::string> isr) { asked.add(std::move(isr)); },
                              [] { return true; },
                              {}},
            quiet()) {
    replicator.start();
  }
  ~Node() { replicator.stop(); }

  // Publishes one message of `size` bytes; does not wait for its commit.
  void publish(std::uint32_t epoch, std::size_t size = 100) {
    const std::string body(size, 'm');
    const std::string_view bodies[] = {body};
    replicator.replicate("t", epoch, bodies, 0, [](Replication::Replicated) {});
  }
  // Publishes and waits for the commit: the messages, as a topic gets them.
  std::vector<MessageRef> publish_committed(std::uint32_t epoch, std::size_t size) {
    const std::string body(size, 'n');
    const std::string_view bodies[] = {body};
    std::promise<Replication::Replicated> done;
    auto result = done.get_future();
    replicator.replicate("t", epoch, bodies, 0,
                         [&](Replication::Replicated r) { done.set_value(std::move(r)); });
    if (result.wait_for(5s) != std::future_status::ready) return {};
    auto r = result.get();
    EXPECT_FALSE(r.error) << r.error.message();
    return std::move(r.messages);
  }

  IsrRequests asked;
  Replicator replicator;
};

Role leading(std::uint32_t epoch, std::vector<std::string> replicas, std::vector<std::string> isr) {
  return Role{"t", true, epoch, "self", "", std::move(replicas), std::move(isr), 0};
}

// A follower as a Fetcher behaves: it asks from its log's end, takes every
// record sent, and fsyncs them before it asks again.
struct Follower {
  std::string id;
  std::uint64_t end = 0;
  std::uint64_t durable = 0;
  std::uint32_t log_epoch = 0;

  void fetch(Replicator& leader, std::uint32_t epoch) {
    wire::FetchRequest request;
    request.max_bytes = 1 << 20;
    request.node = id;
    request.topics.push_back({"t", epoch, log_epoch, end, durable});
    leader.fetch(wire::encode(request), [&](int status, std::string body) {
      ASSERT_EQ(status, 200) << body;
      auto answers = wire::decode_answers(body);
      ASSERT_TRUE(answers) << answers.error();
      ASSERT_EQ(answers->size(), 1u);
      const wire::FetchAnswer& a = answers->front();
      ASSERT_EQ(a.status, wire::FetchStatus::ok);
      end += a.records.size();
      durable = end;
      if (!a.records.empty()) log_epoch = epoch;
    });
  }
};

TEST(ReplicatorInSyncSet, AFollowerRejoinsWhilePublishingNeverPauses) {
  testutil::TempDir dir;
  Node leader(dir.path());
  leader.replicator.apply({leading(1, {"self", "a", "b"}, {"self", "a"})});
  Follower a{"a"}, b{"b"};
  // Every round publishes, so the leader's end has always moved past what
  // b last confirmed: b is never at the very end, only at the commit point.
  std::atomic<bool> joined = false;
  std::thread load([&] {
    while (!joined) {
      leader.publish(1);
      a.fetch(leader.replicator, 1);
      b.fetch(leader.replicator, 1);
    }
  });
  joined = leader.asked.await({"self", "a", "b"}, 5s);
  joined = true;
  load.join();
  EXPECT_TRUE(leader.asked.await({"self", "a", "b"}, 0ms))
      << "b confirms every committed record, and was not added to the in-sync set";
}

TEST(ReplicatorInSyncSet, AFollowerThatFetchesButNeverFsyncsStaysOut) {
  testutil::TempDir dir;
  Node leader(dir.path());
  leader.replicator.apply({leading(1, {"self", "a", "b"}, {"self", "a"})});
  for (int i = 0; i < 20; ++i) leader.publish(1);
  Follower a{"a"}, b{"b"};
  const auto until = std::chrono::steady_clock::now() + 1500ms;
  while (std::chrono::steady_clock::now() < until) {
    a.fetch(leader.replicator, 1);
    b.fetch(leader.replicator, 1);
    b.durable = 0;                      // it asks from the end; nothing of it on disk
    std::this_thread::sleep_for(10ms);  // pacing a follower's requests, not synchronisation
  }
  EXPECT_EQ(leader.asked.count(), 0u) << "b has no committed record on disk, and joined";
}

TEST(ReplicatorInSyncSet, AMemberThatFetchesButCannotFsyncLeaves) {
  testutil::TempDir dir;
  Node leader(dir.path());
  leader.replicator.apply({leading(1, {"self", "a", "b"}, {"self", "a", "b"})});
  Follower a{"a"}, b{"b"};
  std::atomic<bool> left = false;
  std::thread load([&] {
    while (!left) {
      leader.publish(1);
      a.fetch(leader.replicator, 1);
      b.fetch(leader.replicator, 1);
      b.durable = 0;
      std::this_thread::sleep_for(5ms);  // pacing the load, not synchronisation
    }
  });
  left = leader.asked.await({"self", "a"}, 5s);
  left = true;
  load.join();
  EXPECT_TRUE(leader.asked.await({"self", "a"}, 0ms))
      << "b holds the commit point with nothing on disk, and stayed in the in-sync set";
}

// Ids are offsets (docs/replication.md, "Message ids").
MessageRef message_at(std::uint64_t offset, std::string_view body) {
  return MessageRef::create(id_at(0, offset), 1, body);
}

TEST(ReplicatorTakeover, ProgressAboutRecordsThisLogNeverGotIsDropped) {
  testutil::TempDir dir;
  Node node(dir.path(), 1);
  // Following a former leader (unreachable: its fetcher only retries).
  const std::string former = "127.0.0.1:1";
  node.replicator.apply({Role{"t", false, 1, former, "", {former, "self"}, {former, "self"}, 0}});
  // It got two records of the former leader's four; the former leader's
  // progress covers all four (handed, and channel c finished the last two).
  std::string records;
  std::vector<std::uint64_t> offsets;
  for (const std::size_t size : {10u, 20u, 30u, 40u}) {
    offsets.push_back(records.size());
    LogRecord r{1, 0, {}};
    append_message(r.message, MessageHeader{1, 0, id_at(0, records.size())},
                   std::string(size, 'o'));
    append_record(records, r);
  }
  const std::uint64_t got = offsets[2];
  TopicProgress former_progress;
  former_progress.handed = OffsetSet(records.size());
  former_progress.channels["c"].finished = OffsetSet(0, {{offsets[2], records.size()}});
  wire::FetchAnswer answer;
  answer.topic = "t";
  answer.epoch = 1;
  answer.records = records.substr(0, got);
  answer.progress = encode(former_progress);
  ASSERT_TRUE(node.replicator.absorb(former, answer));
  ASSERT_TRUE(node.replicator.sync_followed(former));

  node.replicator.apply({leading(2, {former, "self"}, {"self"})});
  const Replicator::Handover handover = node.replicator.handover("t");
  ASSERT_EQ(handover.end, got);
  EXPECT_EQ(handover.progress.handed, OffsetSet(got));
  EXPECT_EQ(handover.progress.channels.at("c").finished, OffsetSet(0));

  // New records take the offsets the former leader's had, with other
  // sizes: they are owed to the topic until it hands them (were this node
  // to fail now, the next leader's replay would skip them otherwise).
  std::vector<MessageRef> published;
  for (const std::size_t size : {5u, 7u, 100u}) {
    auto m = node.publish_committed(2, size);
    ASSERT_EQ(m.size(), 1u);
    published.push_back(std::move(m.front()));
  }
  for (const MessageRef& m : published) {
    const auto at = offset_of(0, m->id());
    ASSERT_TRUE(at);
    EXPECT_FALSE(handover.ledger->progress().handed.contains(*at))
        << "a new record at " << *at << " counts as handed already";
    EXPECT_FALSE(handover.ledger->progress().channels.at("c").finished.contains(*at))
        << "a new record at " << *at << " counts as finished already";
  }
  // Once c finished everything, nothing is owed below the end.
  std::vector<MessageRef> delivered;
  delivered.push_back(message_at(offsets[0], std::string(10, 'o')));
  delivered.push_back(message_at(offsets[1], std::string(20, 'o')));
  handover.ledger->handed(published);
  for (auto& m : published) delivered.push_back(std::move(m));
  for (const MessageRef& m : delivered) handover.ledger->finished("c", *m);
  const std::uint64_t end = node.replicator.handover("t").end;
  EXPECT_EQ(handover.ledger->progress().low_water(), end)
      << "the cursor stopped inside a record, at an offset the former leader's records had";
}

}  // namespace
}  // namespace nsq::nsqd::cluster
