#include "registration_db.h"

#include <gtest/gtest.h>

namespace nsq::lookupd {
namespace {

using namespace std::chrono_literals;

const Time kT0 = Time{} + std::chrono::hours(24 * 365 * 50);

std::shared_ptr<Peer> make_peer(const std::string& id, const std::string& bcast = "h",
                                int http_port = 4151, Time now = kT0) {
  PeerInfo info;
  info.id = id;
  info.remote_address = id;
  info.hostname = "host-" + id;
  info.broadcast_address = bcast;
  info.tcp_port = 4150;
  info.http_port = http_port;
  info.version = "1.3.0";
  return std::make_shared<Peer>(std::move(info), now);
}

Registration topic_key(const std::string& t) { return {"topic", t, ""}; }
Registration channel_key(const std::string& t, const std::string& c) { return {"channel", t, c}; }

TEST(RegistrationDb, AddProducerIsIdempotent) {
  RegistrationDb db;
  auto p = make_peer("a:1");
  EXPECT_TRUE(db.add_producer(topic_key("t"), p));
  EXPECT_FALSE(db.add_producer(topic_key("t"), p));
  EXPECT_EQ(db.find_producers("topic", "t", "").size(), 1u);
}

TEST(RegistrationDb, RemoveProducerKeepsKeyAndReportsLeft) {
  RegistrationDb db;
  db.add_producer(topic_key("t"), make_peer("a:1"));
  db.add_producer(topic_key("t"), make_peer("b:1"));
  auto r = db.remove_producer(topic_key("t"), "a:1");
  EXPECT_TRUE(r.removed);
  EXPECT_EQ(r.left, 1u);
  r = db.remove_producer(topic_key("t"), "a:1");
  EXPECT_FALSE(r.removed);
  r = db.remove_producer(topic_key("t"), "b:1");
  EXPECT_EQ(r.left, 0u);
  EXPECT_EQ(db.find_registrations("topic", "t", "").size(), 1u);  // key stays
  r = db.remove_producer(topic_key("nope"), "b:1");
  EXPECT_FALSE(r.removed);
  EXPECT_EQ(r.left, 0u);
}

TEST(RegistrationDb, WildcardQueries) {
  RegistrationDb db;
  auto a = make_peer("a:1"), b = make_peer("b:1");
  db.add_producer(channel_key("t", "c1"), a);
  db.add_producer(channel_key("t", "c2"), b);
  db.add_producer(channel_key("t", "c2"), a);
  db.add_producer(channel_key("u", "c1"), a);
  db.add_registration(topic_key("t"));
  EXPECT_EQ(db.find_registrations("channel", "t", "*").size(), 2u);
  EXPECT_EQ(db.find_registrations("channel", "*", "c1").size(), 2u);
  EXPECT_EQ(db.find_registrations("channel", "*", "*").size(), 3u);
  EXPECT_EQ(db.find_registrations("topic", "*", "").size(), 1u);
  EXPECT_EQ(db.find_producers("channel", "t", "*").size(), 2u);  // each peer once
  EXPECT_EQ(db.find_producers("channel", "*", "c1").size(), 1u);
  EXPECT_TRUE(db.find_producers("channel", "x", "y").empty());
  EXPECT_EQ(db.lookup_registrations("a:1").size(), 3u);
  EXPECT_EQ(db.lookup_registrations("b:1").size(), 1u);
  EXPECT_EQ(channels(db, "t"), (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(topics(db), (std::vector<std::string>{"t"}));
}

TEST(RegistrationDb, LookupFiltersInactiveProducers) {
  RegistrationDb db;
  auto a = make_peer("a:1", "h", 4151, kT0);
  auto b = make_peer("b:1", "h", 4152, kT0 + 10s);
  db.add_producer(topic_key("t"), a);
  db.add_producer(topic_key("t"), b);
  auto r = lookup(db, "t", kT0 + 300s, 300s, 45s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->producers.size(), 2u);  // exactly at the timeout: still active
  r = lookup(db, "t", kT0 + 301s, 300s, 45s);
  ASSERT_EQ(r->producers.size(), 1u);
  EXPECT_EQ(r->producers[0]->id, "b:1");
  // A PING refreshes the peer in every registration.
  EXPECT_EQ(db.touch(*a, kT0 + 301s), kT0);
  r = lookup(db, "t", kT0 + 302s, 300s, 45s);
  EXPECT_EQ(r->producers.size(), 2u);
  EXPECT_FALSE(lookup(db, "nope", kT0, 300s, 45s));
}

TEST(RegistrationDb, TombstoneHidesProducerForItsLifetime) {
  RegistrationDb db;
  auto a = make_peer("a:1", "ha", 4151);
  auto b = make_peer("b:1", "hb", 4151);
  db.add_producer(topic_key("t"), a);
  db.add_producer(topic_key("t"), b);
  db.add_producer(topic_key("u"), a);
  db.add_producer(Registration{"client", "", ""}, a);
  db.add_producer(Registration{"client", "", ""}, b);
  EXPECT_EQ(db.tombstone("t", "ha:4151", kT0), 1u);
  EXPECT_EQ(db.tombstone("t", "ha:9999", kT0), 0u);
  EXPECT_EQ(db.tombstone("missing", "ha:4151", kT0), 0u);

  auto r = lookup(db, "t", kT0 + 44s, 300s, 45s);
  ASSERT_EQ(r->producers.size(), 1u);
  EXPECT_EQ(r->producers[0]->id, "b:1");
  EXPECT_EQ(lookup(db, "u", kT0 + 1s, 300s, 45s)->producers.size(), 1u);  // other topic

  // Re-registering does not clear the tombstone.
  EXPECT_FALSE(db.add_producer(topic_key("t"), a));
  EXPECT_EQ(lookup(db, "t", kT0 + 44s, 300s, 45s)->producers.size(), 1u);
  // After the lifetime the producer is visible again.
  EXPECT_EQ(lookup(db, "t", kT0 + 45s, 3000s, 45s)->producers.size(), 2u);

  // /nodes: tombstoned nodes are listed, with the flag per topic.
  auto n = nodes(db, kT0 + 10s, 300s, 45s);
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0].peer->id, "a:1");
  EXPECT_EQ(n[0].topics, (std::vector<std::string>{"t", "u"}));
  EXPECT_EQ(n[0].tombstones, (std::vector<bool>{true, false}));
  EXPECT_EQ(n[1].tombstones, (std::vector<bool>{false}));
  n = nodes(db, kT0 + 50s, 300s, 45s);
  EXPECT_EQ(n[0].tombstones, (std::vector<bool>{false, false}));
  // Inactive nodes are left out.
  EXPECT_TRUE(nodes(db, kT0 + 301s, 300s, 45s).empty());
}

TEST(RegistrationDb, SnapshotAndRemoveRegistration) {
  RegistrationDb db;
  auto a = make_peer("a:1");
  db.add_producer(topic_key("t"), a);
  db.add_registration(topic_key("empty"));
  EXPECT_FALSE(db.add_registration(topic_key("empty")));
  auto s = db.snapshot();
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s[topic_key("t")].size(), 1u);
  EXPECT_EQ(s[topic_key("t")][0].last_update, kT0);
  db.remove_registration(topic_key("t"));
  EXPECT_TRUE(db.find_registrations("topic", "t", "").empty());
  EXPECT_TRUE(db.lookup_registrations("a:1").empty());
}

TEST(RegistrationDb, RemovePeerLeavesEveryKeyAndKeepsTheKeys) {
  RegistrationDb db;
  auto a = make_peer("a:1");
  auto b = make_peer("b:1");
  db.add_producer(topic_key("t"), a);
  db.add_producer(topic_key("t"), b);
  db.add_producer(topic_key("u"), a);
  db.add_producer(Registration{"client", "", ""}, a);
  auto removed = db.remove_peer("a:1");
  EXPECT_EQ(removed, (std::vector<Registration>{Registration{"client", "", ""}, topic_key("t"),
                                                topic_key("u")}));
  EXPECT_TRUE(db.lookup_registrations("a:1").empty());
  EXPECT_EQ(db.lookup_registrations("b:1"), std::vector<Registration>{topic_key("t")});
  EXPECT_EQ(db.find_registrations("topic", "u", "").size(), 1u) << "keys stay, as Go's";
  EXPECT_TRUE(db.remove_peer("a:1").empty());
}

}  // namespace
}  // namespace nsq::lookupd
