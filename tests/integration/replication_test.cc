// Cluster mode (docs/replication.md) with a real etcd and three real nsqd
// on loopback: membership, topic placement, leader election with epochs,
// failover after a SIGKILL, hand-over on a clean stop, and what /stats and
// /info show. Everything another process decides is polled for, bounded.

#include <rapidjson/document.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/fetch_stream.h"
#include "cluster/replication_wire.h"
#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

// A fetch sent to `leader` (host:tcp_port) as a follower sends it
// (CLUSTER_FETCH), and its answer.
tl::expected<nsqd::cluster::FetchStream::Answer, std::string> fetch(const std::string& leader,
                                                                    const std::string& body) {
  nsqd::cluster::FetchStream stream;
  auto sent = stream.send(leader, body, ms(1000), ms(3000), 1 << 22);
  if (!sent) return tl::unexpected(sent.error());
  return stream.receive();
}

tl::expected<nsqd::cluster::FetchStream::Answer, std::string> fetch(
    const std::string& leader, const nsqd::cluster::wire::FetchRequest& request) {
  return fetch(leader, nsqd::cluster::wire::encode(request));
}

TEST_F(ReplicationTest, TopicIsPlacedOnEveryNodeWithTheCreatorLeading) {
  auto* a = start_node();
  auto* b = start_node();
  auto* c = start_node();
  ASSERT_TRUE(a && b && c);
  // Every node must be a member before the topic is placed.
  ASSERT_TRUE(
      eventually([&] { return c->log().find("CLUSTER: joined") != std::string::npos; }, kReply));

  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  producer.pub("orders", "m1");
  ASSERT_TRUE(got_response(producer, "OK"));

  const std::vector<std::string> all = {id(a), id(b), id(c)};
  for (NsqdProcess* node : {a, b, c}) {
    auto r = await_epoch(node, "orders", 1, kReply);
    ASSERT_TRUE(r) << "no replication for orders on " << id(node) << ": " << node->log();
    EXPECT_EQ(r->epoch, 1);
    EXPECT_EQ(r->leader, id(a));
    EXPECT_EQ(r->role, node == a ? "leader" : "follower");
    ASSERT_EQ(r->replicas.size(), 3u);
    EXPECT_EQ(r->replicas.front(), id(a)) << "the creator comes first";
    EXPECT_EQ(std::set(r->replicas.begin(), r->replicas.end()), std::set(all.begin(), all.end()));
    EXPECT_EQ(r->isr, r->replicas);
  }
  // Followers hold the topic too.
  for (NsqdProcess* node : {b, c}) {
    auto reply = http(node, "GET", "/stats?format=json&topic=orders");
    ASSERT_TRUE(reply);
    EXPECT_NE(reply->body.find("\"topic_name\":\"orders\""), std::string::npos);
  }
  auto info = http(b, "GET", "/info");
  ASSERT_TRUE(info);
  EXPECT_NE(info->body.find("\"cluster\":true"), std::string::npos) << info->body;
}

TEST_F(ReplicationTest, ReplicasComeFromTheRequestOrTheDefaultCappedByLiveNodes) {
  auto* a = start_node({"--default-replication-factor=5"});
  auto* b = start_node();
  ASSERT_TRUE(a && b);

  auto created = http(a, "POST", "/topic/create?topic=wide");
  ASSERT_TRUE(created && created->status == 200) << (created ? created->describe() : "");
  auto wide = await_epoch(a, "wide", 1, kReply);
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->replicas.size(), 2u) << "5 asked, 2 nodes live";

  created = http(a, "POST", "/topic/create?topic=single&replicas=1");
  ASSERT_TRUE(created && created->status == 200);
  auto single = await_epoch(a, "single", 1, kReply);
  ASSERT_TRUE(single);
  EXPECT_EQ(single->replicas, std::vector<std::string>{id(a)});

  auto bad = http(a, "POST", "/topic/create?topic=bad&replicas=0");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(bad->body, R"({"message":"INVALID_REPLICAS"})");
}

TEST_F(ReplicationTest, KilledLeaderIsReplacedWithinTheLeaseTtl) {
  ASSERT_TRUE(start_three_with_topic());
  auto *a = nodes_[0].get(), *b = nodes_[1].get(), *c = nodes_[2].get();

  const auto killed = Clock::now();
  ASSERT_TRUE(a->kill_now());
  // The lease runs out after its TTL; a follower then wins the election.
  auto rb = await_epoch(b, "t", 2, ms(lease_ttl_s_ * 1000 + 5000));
  const auto elapsed = Clock::now() - killed;
  ASSERT_TRUE(rb && rb->epoch == 2) << b->log();
  EXPECT_TRUE(rb->leader == id(b) || rb->leader == id(c)) << rb->leader;
  EXPECT_LT(elapsed, std::chrono::seconds(lease_ttl_s_ + 2)) << "failover took too long";
  auto rc = await_epoch(c, "t", 2, kReply);
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->leader, rb->leader);
  NsqdProcess* winner = rb->leader == id(b) ? b : c;
  NsqdProcess* loser = winner == b ? c : b;
  EXPECT_EQ(replication(winner, "t")->role, "leader");
  EXPECT_EQ(replication(loser, "t")->role, "follower");
  EXPECT_TRUE(winner->wait_for_log("TOPIC(t): leader at epoch 2", kReply));

  // Publishing resumes at once: the dead leader does not count as in sync
  // again (the lag period a new leader grants is no proof of life, and its
  // empty log made a's "acked 0" look caught up).
  const auto published = Clock::now();
  auto pub = http(winner, "POST", "/pub?topic=t", "after-failover");
  ASSERT_TRUE(pub);
  EXPECT_EQ(pub->status, 200) << pub->describe();
  EXPECT_LT(Clock::now() - published, std::chrono::milliseconds(lease_ttl_s_ * 1000 / 2))
      << "the publish waited for the dead node\n"
      << winner->log();
  auto isr = replication(winner, "t")->isr;
  EXPECT_EQ(std::count(isr.begin(), isr.end(), id(a)), 0) << winner->log();
}

TEST_F(ReplicationTest, CleanStopHandsLeadershipOverAtOnce) {
  lease_ttl_s_ = 30;  // a failover by expiry would take this long
  auto* a = start_node();
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));

  ASSERT_TRUE(a->stop());
  EXPECT_NE(a->log().find("CLUSTER: left"), std::string::npos) << a->log();
  // Polled every TTL/5 (6 s): well under the 30 s an expiry would take.
  auto r = await_epoch(b, "t", 2, ms(15000));
  ASSERT_TRUE(r && r->epoch == 2) << b->log();
  EXPECT_EQ(r->leader, id(b));
  EXPECT_EQ(r->role, "leader");
}

TEST_F(ReplicationTest, NodesKeepTheirPlaceAcrossAnEtcdRestart) {
  lease_ttl_s_ = 3;
  auto* a = start_node();
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));

  etcd_.kill_now();
  const std::string err = etcd_.start(dir_.path() / "etcd");
  ASSERT_TRUE(err.empty()) << err;
  // New topics are placed again, and the old one has a leader.
  ASSERT_TRUE(http(b, "POST", "/topic/create?topic=after"));
  auto after = await_epoch(a, "after", 1, ms(15000));
  ASSERT_TRUE(after) << a->log() << b->log();
  EXPECT_EQ(after->leader, id(b));
  auto t = await_epoch(a, "t", 1, ms(15000));
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->leader.empty());
}

// A deletion that etcd could not take (down) is asked again until it can.
TEST_F(ReplicationTest, ATopicDeletedWhileEtcdIsDownLeavesTheClusterOnceEtcdIsBack) {
  lease_ttl_s_ = 3;
  auto* a = start_node();
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));

  etcd_.kill_now();
  auto deleted = http(b, "POST", "/topic/delete?topic=t");
  ASSERT_TRUE(deleted && deleted->status == 200);
  ASSERT_TRUE(b->wait_for_log("could not read the cluster", ms(10000))) << b->log();
  const std::string err = etcd_.start(dir_.path() / "etcd");
  ASSERT_TRUE(err.empty()) << err;
  EXPECT_TRUE(eventually([&] { return !replication(a, "t"); }, ms(15000)))
      << "a still replicates t\n"
      << b->log();
  EXPECT_TRUE(b->wait_for_log("TOPIC(t): deleted from the cluster", kReply)) << b->log();
}

// One of etcd's own counters (its /metrics), -1 when it cannot be read.
double etcd_counter(int port, const std::string& name) {
  auto reply = testutil::http_once(port, "GET", "/metrics");
  if (!reply || reply->status != 200) return -1;
  const std::string line_start = "\n" + name + " ";
  const auto at = reply->body.find(line_start);
  if (at == std::string::npos) return -1;
  return std::stod(reply->body.substr(at + line_start.size()));
}

TEST_F(ReplicationTest, AnIdleNodeAsksEtcdAtTheLeasePaceNotInALoop) {
  // A 2 s TTL: keepalives every 2/3 s and a read of the cluster every
  // 0.2 s (a TTL in whole seconds divided by 3 once made both 0: a busy loop).
  lease_ttl_s_ = 2;
  auto* a = start_node();
  ASSERT_TRUE(a);
  ASSERT_TRUE(
      eventually([&] { return a->log().find("CLUSTER: joined") != std::string::npos; }, kReply));
  const int port = etcd_.client_port();
  const double ranges = etcd_counter(port, "etcd_debugging_mvcc_range_total");
  const double renewals = etcd_counter(port, "etcd_debugging_lease_renewed_total");
  ASSERT_GE(ranges, 0);
  ASSERT_GE(renewals, 0);
  const auto window = std::chrono::seconds(4);
  std::this_thread::sleep_for(window);  // the span counted, not a wait for an event
  const double more_ranges = etcd_counter(port, "etcd_debugging_mvcc_range_total") - ranges;
  const double more_renewals = etcd_counter(port, "etcd_debugging_lease_renewed_total") - renewals;
  // 4 s / 0.2 s = 20 reads and 4 s / 0.67 s = 6 renewals, with room for a retry.
  EXPECT_GE(more_ranges, 10);
  EXPECT_LE(more_ranges, 30);
  EXPECT_GE(more_renewals, 3);
  EXPECT_LE(more_renewals, 10);
}

// --- the data path -----------------------------------------------------

// How many times `needle` occurs in the topic's replica log on `node`
// (its segments, concatenated).
TEST_F(ReplicationTest, PublishIsAcknowledgedOnceInTheInSyncReplicasLogs) {
  auto* a = start_node({"--min-insync-replicas=3"});
  auto* b = start_node();
  auto* c = start_node();
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(
      eventually([&] { return c->log().find("CLUSTER: joined") != std::string::npos; }, kReply));
  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  // With every replica required, an OK means every log holds the messages.
  producer.pub("orders", "first-message");
  ASSERT_TRUE(got_response(producer, "OK")) << a->log();
  producer.mpub("orders", {"second-message", "third-message"});
  ASSERT_TRUE(got_response(producer, "OK"));
  for (std::size_t i = 0; i < 3; ++i) {
    for (const char* body : {"first-message", "second-message", "third-message"}) {
      EXPECT_EQ(count_in_log(dir_.path() / ("node" + std::to_string(i)), "orders", body), 1)
          << body << " on node " << i;
    }
  }
  // HTTP publishing takes the same path.
  auto pub = http(a, "POST", "/pub?topic=orders", "fourth-message");
  ASSERT_TRUE(pub);
  EXPECT_EQ(pub->status, 200) << pub->describe();
  auto r = replication(a, "orders");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->isr.size(), 3u);
}

// A follower confirms each fsync at once in a fetch without room for records
// (max bytes 0): the leader answers it at once, with the commit point but
// neither records nor delivery progress, which only a fetch may take.
TEST_F(ReplicationTest, AConfirmationIsAnsweredAtOnceWithoutRecords) {
  auto* a = start_node();
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  auto pub = http(a, "POST", "/pub?topic=t", "committed");
  ASSERT_TRUE(pub && pub->status == 200);

  auto ask = [&](std::uint32_t max_bytes, std::uint32_t wait_ms) {
    nsqd::cluster::wire::FetchRequest request;
    request.node = id(b);
    request.max_bytes = max_bytes;
    request.wait_ms = wait_ms;
    request.topics.push_back({"t", 1, 1, 0, 0});
    auto reply = fetch(id(a), request);
    EXPECT_TRUE(reply && reply->status == 200) << (reply ? reply->body : reply.error());
    auto answers = nsqd::cluster::wire::decode_answers(reply ? reply->body : "");
    EXPECT_TRUE(answers && answers->size() == 1u);
    return answers && answers->size() == 1u ? answers->front() : nsqd::cluster::wire::FetchAnswer{};
  };
  // A fetch from offset 0 gets the message's record.
  const auto fetched = ask(1 << 20, 0);
  EXPECT_EQ(fetched.status, nsqd::cluster::wire::FetchStatus::ok);
  EXPECT_NE(fetched.records.find("committed"), std::string::npos);
  // A confirmation from offset 0, even one that says it may wait, gets none.
  const auto started = Clock::now();
  const auto confirmed = ask(0, 2000);
  EXPECT_LT(Clock::now() - started, ms(1500)) << "answered at once";
  EXPECT_EQ(confirmed.status, nsqd::cluster::wire::FetchStatus::ok);
  EXPECT_EQ(confirmed.records, "");
  EXPECT_EQ(confirmed.progress, "");
  EXPECT_GT(confirmed.value, 0u) << "the commit point";
  // A request that does not decode: 400 and why, on a connection that stays.
  auto bad = fetch(id(a), std::string("\x00\x00\x01", 3));
  ASSERT_TRUE(bad) << bad.error();
  EXPECT_EQ(bad->status, 400);
  EXPECT_FALSE(bad->body.empty());
  // An empty one is refused as other commands' bodies are.
  auto empty = fetch(id(a), "");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("E_BAD_BODY CLUSTER_FETCH invalid body size 0"), std::string::npos)
      << empty.error();
}

// A follower's fetches and confirmations travel on two connections, so a
// fetch sent before a confirmation can arrive after it, and a held fetch is
// looked at again when it is answered: a request that carries an older
// fsynced end than the follower has confirmed must not move its
// acknowledged point back (a publish would then wait for the follower's
// next request: the 100-500 ms stalls of replicated publishing's tail).
TEST_F(ReplicationTest, AnOlderFsyncedEndDoesNotUndoAConfirmation) {
  lease_ttl_s_ = 10;  // c stays in the in-sync set while frozen
  auto* a = start_node();
  auto* b = start_node();
  auto* c = start_node();
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));
  auto pub = http(a, "POST", "/pub?topic=t", "confirmed");
  ASSERT_TRUE(pub && pub->status == 200);
  auto lag_of_c = [&]() -> std::int64_t {
    auto r = replication(a, "t");
    return r && r->lag.count(id(c)) ? r->lag.at(id(c)) : -1;
  };
  ASSERT_TRUE(eventually([&] { return lag_of_c() == 0; }, ms(5000)));
  // Frozen, c sends nothing more of its own: the test speaks for it.
  ASSERT_TRUE(c->send_signal(SIGSTOP));

  nsqd::cluster::wire::FetchRequest stale;
  stale.node = id(c);
  stale.max_bytes = 1 << 20;
  stale.wait_ms = 0;
  stale.topics.push_back({"t", 1, 1, 0, 0});  // durable end 0: before the confirmation
  auto reply = fetch(id(a), stale);
  ASSERT_TRUE(reply && reply->status == 200) << (reply ? reply->body : reply.error());
  EXPECT_EQ(lag_of_c(), 0) << "c's confirmed end moved back";
  ASSERT_TRUE(c->send_signal(SIGCONT));
}

// /topic/delete on any node deletes the topic from the cluster: every
// replica drops it and its replica log, and publishing again creates it
// anew.
TEST_F(ReplicationTest, DeletingATopicOnAnyNodeDeletesItEverywhere) {
  ASSERT_TRUE(start_three_with_topic());
  auto* b = nodes_[1].get();
  for (int i = 0; i < 3; ++i) {
    auto pub = http(nodes_[static_cast<std::size_t>(i)].get(), "POST", "/pub?topic=t", "before");
    ASSERT_TRUE(pub && pub->status == 200) << (pub ? pub->describe() : "no reply");
  }
  auto replica_files = [&](std::size_t i) {
    int n = 0;
    for (const auto& e :
         std::filesystem::directory_iterator(dir_.path() / ("node" + std::to_string(i)))) {
      if (e.path().filename().string().starts_with("t.replica.")) ++n;
    }
    return n;
  };
  ASSERT_GT(replica_files(0), 0);

  // On a follower: the leader and the other follower drop it too.
  auto deleted = http(b, "POST", "/topic/delete?topic=t");
  ASSERT_TRUE(deleted && deleted->status == 200) << (deleted ? deleted->describe() : "no reply");
  for (std::size_t i = 0; i < 3; ++i) {
    NsqdProcess* node = nodes_[i].get();
    EXPECT_TRUE(eventually(
        [&] {
          auto stats = http(node, "GET", "/stats?format=json&topic=t");
          return stats && stats->body.find("\"topic_name\":\"t\"") == std::string::npos &&
                 replica_files(i) == 0;
        },
        kReply))
        << "node " << i << "\n"
        << node->log();
  }
  // A publish creates a new topic, placed and led afresh.
  auto again = http(nodes_[0].get(), "POST", "/pub?topic=t", "after");
  ASSERT_TRUE(again && again->status == 200) << (again ? again->describe() : "no reply");
  auto r = await_epoch(b, "t", 1, kReply);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->isr.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto data = dir_.path() / ("node" + std::to_string(i));
    EXPECT_TRUE(eventually([&] { return count_in_log(data, "t", "after") == 1; }, kReply)) << i;
    EXPECT_EQ(count_in_log(data, "t", "before"), 0) << "node " << i << " kept the deleted log";
  }
}

TEST_F(ReplicationTest, AFollowerForwardsPublishesToTheLeader) {
  auto* a = start_node();
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  RawClient producer;
  ASSERT_TRUE(producer.connect(b->tcp_port()));
  producer.magic();
  producer.pub("t", "tcp-pub-from-b");
  EXPECT_TRUE(got_response(producer, "OK"));
  producer.mpub("t", {"tcp-mpub-one-from-b", "tcp-mpub-two-from-b"});
  EXPECT_TRUE(got_response(producer, "OK"));
  producer.dpub("t", 10, "tcp-dpub-from-b");
  EXPECT_TRUE(got_response(producer, "OK"));
  auto pub = http(b, "POST", "/pub?topic=t", "http-pub-from-b");
  ASSERT_TRUE(pub);
  EXPECT_EQ(pub->status, 200) << pub->describe();
  for (const char* body : {"tcp-pub-from-b", "tcp-mpub-one-from-b", "tcp-mpub-two-from-b",
                           "tcp-dpub-from-b", "http-pub-from-b"}) {
    EXPECT_EQ(count_in_log(dir_.path() / "node0", "t", body), 1) << body;
  }
  // /mpub?defer= (Go master's) keeps its delay through the forwarding: the
  // leader's channel holds both deferred.
  ASSERT_TRUE(http(a, "POST", "/channel/create?topic=t&channel=c"));
  auto deferred = http(b, "POST", "/mpub?topic=t&defer=60000", "deferred-one\ndeferred-two");
  ASSERT_TRUE(deferred);
  EXPECT_EQ(deferred->status, 200) << deferred->describe();
  EXPECT_TRUE(eventually(
      [&] {
        auto s = http(a, "GET", "/stats?format=json&topic=t&channel=c");
        return s && s->body.find("\"deferred_count\":2") != std::string::npos;
      },
      kReply));
  // A publish that was forwarded already is refused, never forwarded again.
  HttpClient client(b->http_port());
  auto again = client.request("POST", "/pub?topic=t", "x", {{"X-NSQ-Forwarded", "1"}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 503);
  EXPECT_EQ(again->body, "{\"message\":\"PUB_FAILED - not the leader of t (" + id(a) + " is)\"}");
}

TEST_F(ReplicationTest, TooFewInSyncReplicasFailPublishesUntilOneCatchesUp) {
  lease_ttl_s_ = 2;
  auto* a = start_node();  // --min-insync-replicas=2 by default
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  producer.pub("t", "before");
  ASSERT_TRUE(got_response(producer, "OK")) << a->log();

  ASSERT_TRUE(b->kill_now());
  // The follower leaves the in-sync set after a TTL without catching up;
  // from then on nothing is acknowledged.
  bool refused = false;
  for (int i = 0; i < 20 && !refused; ++i) {
    producer.pub("t", "during-" + std::to_string(i));
    auto reply = producer.read_skip_heartbeats(ms(10000));
    refused = is_error(reply, "E_PUB_FAILED PUB failed not enough in-sync replicas");
    if (!refused) {
      ASSERT_TRUE(is_response(reply, "OK")) << reply.describe();
    }
  }
  ASSERT_TRUE(refused) << a->log();
  EXPECT_EQ(replication(a, "t")->isr, std::vector<std::string>{id(a)});

  // Back again, it catches up and publishing resumes.
  NsqdProcess::Options o;
  o.data_path = dir_.path() / "node1";
  o.require_http = true;
  o.extra_args = {"--broadcast-address=127.0.0.1", "--etcd-endpoints=" + etcd_.endpoint(),
                  "--cluster-lease-ttl=2s",
                  "--tcp-address=127.0.0.1:" + std::to_string(b->tcp_port())};
  NsqdProcess again;
  ASSERT_EQ(again.start(o), "");
  ASSERT_TRUE(eventually([&] { return replication(a, "t")->isr.size() == 2; }, ms(10000)))
      << a->log();
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  producer.pub("t", "after");
  EXPECT_TRUE(got_response(producer, "OK"));
  EXPECT_EQ(count_in_log(o.data_path, "t", "before"), 1);
}

TEST_F(ReplicationTest, ConsumersGetOnlyCommittedMessages) {
  lease_ttl_s_ = 2;
  auto* a = start_node();  // --min-insync-replicas=2
  auto* b = start_node();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  RawClient consumer;
  ASSERT_TRUE(consumer.connect(a->tcp_port()));
  consumer.magic();
  consumer.sub("t", "c");
  ASSERT_TRUE(got_response(consumer, "OK"));
  consumer.rdy(10);
  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  producer.pub("t", "committed");
  ASSERT_TRUE(got_response(producer, "OK"));
  auto first = consumer.read_skip_heartbeats(kReply);
  auto m = testutil::to_test_message(first.frame);
  ASSERT_TRUE(m) << first.describe();
  EXPECT_EQ(m->body, "committed");

  // Without its follower the leader cannot commit: the publish waits, then
  // fails when the follower leaves the in-sync set, and nobody sees it.
  ASSERT_TRUE(b->kill_now());
  producer.pub("t", "never-committed");
  EXPECT_TRUE(
      got_error(producer, "E_PUB_FAILED PUB failed not enough in-sync replicas", ms(15000)));
  EXPECT_TRUE(got_nothing(consumer, ms(1000)));
}

TEST_F(ReplicationTest, NoAcknowledgedMessageIsLostWhenTheLeaderIsKilled) {
  ASSERT_TRUE(start_three_with_topic());
  auto *a = nodes_[0].get(), *b = nodes_[1].get(), *c = nodes_[2].get();

  // 16 publishers spread over the three nodes (followers pass publishes on),
  // half of them MPUB; a consumer that follows the leader.
  Consumer consumer(leader_finder("t"));
  Producers producers({a->tcp_port(), b->tcp_port(), c->tcp_port()}, 16, {}, 10);
  // Long enough for the delivery progress to reach the followers a few
  // times (every 400 ms at this lease).
  const auto started = Clock::now();
  ASSERT_TRUE(eventually(
      [&] { return producers.acked() >= 1000 && Clock::now() - started >= ms(2000); }, ms(30000)));
  ASSERT_TRUE(a->kill_now(ms(30000)));
  const std::size_t at_kill = producers.acked();
  auto rb = await_epoch(b, "t", 2, ms(10000));
  ASSERT_TRUE(rb && rb->epoch == 2);
  EXPECT_TRUE(eventually([&] { return producers.acked() >= at_kill + 1000; }, ms(20000)))
      << "publishing goes on through the new leader";
  const std::vector<std::string> acked = producers.stop();

  NsqdProcess* leader = rb->leader == id(b) ? b : c;
  const std::size_t index = leader == b ? 1 : 2;
  const std::size_t lost =
      not_once_in_log(dir_.path() / ("node" + std::to_string(index)), "t", acked);
  EXPECT_EQ(lost, 0u) << "of " << acked.size() << " acknowledged";
  std::pair<std::size_t, std::size_t> delivery;
  EXPECT_TRUE(eventually(
      [&] {
        delivery = consumer.missing_and_repeats(acked);
        return delivery.first == 0;
      },
      ms(20000)))
      << delivery.first << " of " << acked.size() << " acknowledged never delivered";
  std::printf("[ acked %zu, delivered again %zu ]\n", acked.size(), delivery.second);
}

TEST_F(ReplicationTest, AFollowerKilledAndRestartedCatchesUpAndRejoins) {
  ASSERT_TRUE(start_three_with_topic());
  auto *a = nodes_[0].get(), *b = nodes_[1].get(), *c = nodes_[2].get();
  Consumer consumer(leader_finder("t"));
  Producers producers({a->tcp_port(), b->tcp_port()}, 4, {}, 10);
  ASSERT_TRUE(eventually([&] { return producers.acked() >= 500; }, ms(20000)));
  ASSERT_TRUE(c->kill_now(ms(30000)));
  const std::size_t at_kill = producers.acked();
  EXPECT_TRUE(eventually([&] { return producers.acked() >= at_kill + 500; }, ms(20000)))
      << "publishing goes on with two in sync";
  // The leader counts what c has not confirmed, in messages.
  auto behind = replication(a, "t");
  ASSERT_TRUE(behind);
  EXPECT_GE(behind->lag[id(c)], 500) << "lag of " << id(c);
  EXPECT_LT(behind->lag[id(c)], static_cast<std::int64_t>(producers.acked()) + 1000);
  c = restart_node(2);
  ASSERT_TRUE(c);
  EXPECT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->isr.size() == 3;
      },
      ms(20000)))
      << c->log();
  const std::size_t at_rejoin = producers.acked();
  EXPECT_TRUE(eventually([&] { return producers.acked() >= at_rejoin + 500; }, ms(20000)));
  const std::vector<std::string> acked = producers.stop();
  // In sync means holding everything committed: c has every acknowledged
  // message once the leader confirms it caught up again.
  EXPECT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->isr.size() == 3;
      },
      ms(20000)));
  const std::size_t missing_on_c = not_once_in_log(dir_.path() / "node2", "t", acked);
  EXPECT_EQ(missing_on_c, 0u) << "of " << acked.size() << " acknowledged";
  std::pair<std::size_t, std::size_t> delivery;
  EXPECT_TRUE(eventually(
      [&] {
        delivery = consumer.missing_and_repeats(acked);
        return delivery.first == 0;
      },
      ms(20000)));
}

// The TCP ports of the producers nsqlookupd lists for `topic`, sorted.
std::vector<int> lookup_ports(int lookupd_http_port, const std::string& topic) {
  HttpClient client(lookupd_http_port);
  auto reply = client.request("GET", "/lookup?topic=" + topic);
  std::vector<int> ports;
  if (!reply || reply->status != 200) return ports;
  rapidjson::Document doc;
  if (doc.Parse(reply->body.c_str()).HasParseError() || !doc.HasMember("producers")) return ports;
  for (const auto& p : doc["producers"].GetArray()) ports.push_back(p["tcp_port"].GetInt());
  std::sort(ports.begin(), ports.end());
  return ports;
}

TEST_F(ReplicationTest, OnlyTheLeaderIsFoundThroughNsqlookupd) {
  lease_ttl_s_ = 2;
  testutil::NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  const std::string flag = "--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port());
  auto* a = start_node({flag});
  auto* b = start_node({flag});
  auto* c = start_node({flag});
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(http(a, "POST", "/channel/create?topic=t&channel=ch"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));
  ASSERT_TRUE(
      eventually([&] { return lookup_ports(lookupd.http_port(), "t").size() == 1; }, kReply));
  EXPECT_EQ(lookup_ports(lookupd.http_port(), "t"), std::vector<int>{a->tcp_port()});

  ASSERT_TRUE(a->kill_now());
  auto r = await_epoch(b, "t", 2, ms(10000));
  ASSERT_TRUE(r && r->epoch == 2);
  NsqdProcess* leader = r->leader == id(b) ? b : c;
  // The new leader registers; the dead one's registration ends with its connection.
  EXPECT_TRUE(eventually(
      [&] {
        return lookup_ports(lookupd.http_port(), "t") == std::vector<int>{leader->tcp_port()};
      },
      ms(10000)))
      << "lookupd lists " << lookup_ports(lookupd.http_port(), "t").size() << " producers";
}

TEST_F(ReplicationTest, NsqdServesWhileEtcdIsUnreachable) {
  etcd_.kill_now();
  NsqdProcess node;
  NsqdProcess::Options o;
  o.data_path = dir_.path() / "alone";
  std::filesystem::create_directories(o.data_path);
  o.require_http = true;
  o.extra_args = {"--broadcast-address=127.0.0.1", "--etcd-endpoints=" + etcd_.endpoint()};
  ASSERT_EQ(node.start(o), "");
  EXPECT_TRUE(node.wait_for_log("CLUSTER: could not join", kReply)) << node.log();
  auto ping = http(&node, "GET", "/ping");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->body, "OK");
  // No placement without etcd: /stats shows no replication object yet.
  ASSERT_TRUE(http(&node, "POST", "/topic/create?topic=t"));
  EXPECT_FALSE(replication(&node, "t"));
  EXPECT_TRUE(node.stop());
}

TEST(ReplicationFlags, BadClusterSettingsStopNsqdAtStart) {
  if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "no nsqd binary";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--etcd-endpoints=ftp://127.0.0.1:2379", "invalid --etcd-endpoints"},
      {"--cluster-lease-ttl=500ms", "--cluster-lease-ttl must be whole seconds"},
      {"--min-insync-replicas=0", "--min-insync-replicas must be >= 1"},
      {"--default-replication-factor=0", "--default-replication-factor must be >= 1"},
  };
  for (const auto& [flag, message] : cases) {
    testutil::TempDir dir;
    NsqdProcess node;
    NsqdProcess::Options o;
    o.data_path = dir.path();
    o.extra_args = {flag};
    o.start_timeout = ms(3000);
    EXPECT_NE(node.start(o), "") << flag << " was accepted";
    auto status = node.wait_exit(kReply);
    ASSERT_TRUE(status) << flag;
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) != 0) << flag;
    EXPECT_NE(node.log().find(message), std::string::npos) << flag << ": " << node.log();
  }
}

TEST(ReplicationOff, StatsAndInfoStayAsGoWritesThem) {
  if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "no nsqd binary";
  testutil::TempDir dir;
  NsqdProcess node;
  NsqdProcess::Options o;
  o.data_path = dir.path();
  o.require_http = true;
  ASSERT_EQ(node.start(o), "");
  HttpClient client(node.http_port());
  ASSERT_TRUE(client.request("POST", "/topic/create?topic=t"));
  auto stats = client.request("GET", "/stats?format=json");
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->body.find("replication"), std::string::npos) << stats->body;
  auto info = client.request("GET", "/info");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->body.find("cluster"), std::string::npos) << info->body;
}

}  // namespace
}  // namespace nsq::integration
