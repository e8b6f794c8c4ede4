#include "core/broker.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "core/metadata.h"
#include "core_test_env.h"

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;
using coretest::eventually;
using coretest::null_logger;
using coretest::test_options;
using coretest::TestSubscriber;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::filesystem::path& p, std::string_view content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

class BrokerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Broker> make_broker() {
    Options o = test_options();
    o.data_path = dir_.path().string();
    return std::make_unique<Broker>(std::move(o), null_logger());
  }
  std::filesystem::path dat() const { return dir_.path() / "nsqd.dat"; }

  // The topology in nsqd.dat, sorted so that map order does not matter.
  std::set<std::string> saved_topology() const {
    auto t = metadata::decode(read_file(dat()));
    EXPECT_TRUE(t) << (t ? "" : t.error());
    std::set<std::string> out;
    if (!t) return out;
    for (const auto& topic : t->topics) {
      out.insert(topic.name + (topic.paused ? " paused" : ""));
      for (const auto& c : topic.channels) {
        out.insert(topic.name + ":" + c.name + (c.paused ? " paused" : ""));
      }
    }
    return out;
  }

  static void publish(Topic& t, std::vector<std::string_view> bodies) {
    DiskWrites spill;
    ASSERT_FALSE(t.publish(bodies, 0ms, spill));
    ASSERT_FALSE(DiskWriter(nullptr).write(spill));
  }

  testutil::TempDir dir_;
};

TEST_F(BrokerTest, GetOrCreateTopicReturnsOneTopicPerName) {
  auto b = make_broker();
  auto t = b->get_or_create_topic("orders");
  ASSERT_TRUE(t);
  EXPECT_EQ(b->get_or_create_topic("orders"), t);
  EXPECT_EQ(b->find_topic("orders"), t);
  EXPECT_EQ(b->find_topic("other"), nullptr);
  auto u = b->get_or_create_topic("events");
  EXPECT_NE(u, t);
  EXPECT_EQ(b->topics().size(), 2u);
}

TEST_F(BrokerTest, CreatingTopicsAndChannelsSavesNsqdDat) {
  auto b = make_broker();
  auto t = b->get_or_create_topic("orders");
  t->get_or_create_channel("billing");
  b->get_or_create_topic("eph#ephemeral")->get_or_create_channel("c");
  t->get_or_create_channel("tmp#ephemeral");
  // Saved asynchronously on the disk pool.
  ASSERT_TRUE(eventually([&] {
    return std::filesystem::exists(dat()) &&
           saved_topology() == std::set<std::string>{"orders", "orders:billing"};
  }));
}

// Creations during a save are coalesced into one more save: the last one
// must still land with everything.
TEST_F(BrokerTest, ABurstOfCreationsEndsWithEveryTopicInNsqdDat) {
  auto b = make_broker();
  std::set<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    std::string name = "burst" + std::to_string(i);
    b->get_or_create_topic(name)->get_or_create_channel("c");
    expected.insert(name);
    expected.insert(name + ":c");
  }
  ASSERT_TRUE(
      eventually([&] { return std::filesystem::exists(dat()) && saved_topology() == expected; }));
}

TEST_F(BrokerTest, SaveAndLoadMetadataRoundTrip) {
  {
    auto b = make_broker();
    auto a = b->get_or_create_topic("a");
    a->pause();
    a->get_or_create_channel("c1")->pause();
    a->get_or_create_channel("c2");
    a->get_or_create_channel("e#ephemeral");
    b->get_or_create_topic("b");
    b->get_or_create_topic("x#ephemeral")->get_or_create_channel("c");
    ASSERT_FALSE(b->save_metadata());
    EXPECT_EQ(saved_topology(), (std::set<std::string>{"a paused", "a:c1 paused", "a:c2", "b"}));
    auto text = read_file(dat());
    EXPECT_NE(text.find(R"({"name":"b","paused":false,"channels":null})"), std::string::npos)
        << text;
    EXPECT_NE(text.find(R"("version":"1.3.0"})"), std::string::npos) << text;
    b->close();
  }
  auto b = make_broker();
  ASSERT_TRUE(b->load_metadata());
  auto a = b->find_topic("a");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->paused());
  ASSERT_TRUE(a->find_channel("c1"));
  EXPECT_TRUE(a->find_channel("c1")->paused());
  ASSERT_TRUE(a->find_channel("c2"));
  EXPECT_FALSE(a->find_channel("c2")->paused());
  EXPECT_EQ(a->find_channel("e#ephemeral"), nullptr);
  ASSERT_TRUE(b->find_topic("b"));
  EXPECT_EQ(b->find_topic("b")->channel_count(), 0u);
  EXPECT_EQ(b->find_topic("x#ephemeral"), nullptr);
  EXPECT_EQ(b->topics().size(), 2u);
  // Loading leaves the file as it was.
  EXPECT_EQ(saved_topology(), (std::set<std::string>{"a paused", "a:c1 paused", "a:c2", "b"}));
}

TEST_F(BrokerTest, LoadsTheGoFixtureTopology) {
  write_file(
      dat(),
      R"({"topics":[{"name":"orders","paused":false,"channels":[{"name":"billing","paused":false},)"
      R"({"name":"audit","paused":true}]},{"name":"events","paused":false,"channels":null}],)"
      R"("version":"1.3.0"})");
  auto b = make_broker();
  ASSERT_TRUE(b->load_metadata());
  auto orders = b->find_topic("orders");
  ASSERT_TRUE(orders);
  EXPECT_FALSE(orders->paused());
  ASSERT_TRUE(orders->find_channel("billing"));
  ASSERT_TRUE(orders->find_channel("audit"));
  EXPECT_TRUE(orders->find_channel("audit")->paused());
  EXPECT_FALSE(orders->find_channel("billing")->paused());
  auto events = b->find_topic("events");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->channel_count(), 0u);
}

TEST_F(BrokerTest, MissingNsqdDatIsAFreshStart) {
  auto b = make_broker();
  EXPECT_TRUE(b->load_metadata());
  EXPECT_TRUE(b->topics().empty());
}

TEST_F(BrokerTest, GarbageNsqdDatIsAnError) {
  for (std::string_view bad : {std::string_view(""), std::string_view("{\"topics\":"),
                               std::string_view("garbage"), std::string_view("[1,2]")}) {
    write_file(dat(), bad);
    auto b = make_broker();
    EXPECT_FALSE(b->load_metadata()) << "accepted: " << bad;
    EXPECT_TRUE(b->topics().empty());
    // The bad file is left alone for the operator.
    EXPECT_EQ(read_file(dat()), bad);
  }
}

// Only a missing nsqd.dat is a fresh start: one that cannot be read is an
// error in Go's words, and nothing is written over it.
TEST_F(BrokerTest, UnreadableNsqdDatIsAnError) {
  std::filesystem::create_directory(dat());
  auto b = make_broker();
  auto dir = b->load_metadata();
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error(), "failed to read metadata from " + dat().string() + " - read " +
                             dat().string() + ": is a directory");
  EXPECT_TRUE(std::filesystem::is_directory(dat()));
  std::filesystem::remove(dat());

  std::filesystem::create_symlink("nsqd.dat", dat());  // a loop
  auto loop = make_broker()->load_metadata();
  ASSERT_FALSE(loop);
  EXPECT_EQ(loop.error(), "failed to read metadata from " + dat().string() + " - open " +
                              dat().string() + ": too many levels of symbolic links");
  EXPECT_TRUE(std::filesystem::is_symlink(dat()));
}

TEST_F(BrokerTest, ParseErrorNamesTheFile) {
  write_file(dat(), R"({"topics":"orders"})");
  auto r = make_broker()->load_metadata();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "failed to parse metadata in " + dat().string() +
                           " - json: cannot unmarshal string into Go struct field Metadata.topics "
                           "of type []nsqd.TopicMetadata");
}

TEST_F(BrokerTest, LoadSkipsInvalidNames) {
  write_file(dat(), R"({"topics":[{"name":"bad topic","paused":false,"channels":null},)"
                    R"({"name":"ok","paused":false,"channels":[{"name":"bad/chan","paused":false},)"
                    R"({"name":"good","paused":false}]}],"version":"1.3.0"})");
  auto b = make_broker();
  ASSERT_TRUE(b->load_metadata());
  EXPECT_EQ(b->topics().size(), 1u);
  auto ok = b->find_topic("ok");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->channel_count(), 1u);
  EXPECT_TRUE(ok->find_channel("good"));
}

TEST_F(BrokerTest, MessagesSurviveCloseAndReload) {
  {
    auto b = make_broker();
    auto t = b->get_or_create_topic("t");
    auto ch = t->get_or_create_channel("c");
    publish(*t, {"one", "two", "three"});
    // One in flight at shutdown: written back too.
    auto sub = std::make_shared<TestSubscriber>();
    ClientId id = b->next_client_id();
    ASSERT_EQ(ch->add_client(id, sub), Channel::AddResult::ok);
    std::vector<QueuedMessage> out;
    ch->take(id, 1, 1, 0, 60s, out);
    ASSERT_EQ(out.size(), 1u);
    b->get_or_create_topic("backlog");
    publish(*b->find_topic("backlog"), {"waiting"});
    b->close();
    EXPECT_EQ(b->get_or_create_topic("new"), nullptr);  // closing
  }
  auto b = make_broker();
  ASSERT_TRUE(b->load_metadata());
  auto ch = b->find_topic("t")->find_channel("c");
  ASSERT_TRUE(ch);
  EXPECT_EQ(ch->stats().depth, 3);
  EXPECT_EQ(b->find_topic("backlog")->stats().depth, 1);
  auto sub = std::make_shared<TestSubscriber>();
  ClientId id = b->next_client_id();
  ASSERT_EQ(ch->add_client(id, sub), Channel::AddResult::ok);
  std::set<std::string> got;
  ASSERT_TRUE(eventually([&] {
    std::vector<QueuedMessage> out;
    ch->take(id, 10, 10, 0, 60s, out);
    for (auto& m : out) got.emplace(m.msg->body());
    return got.size() >= 3;
  }));
  EXPECT_EQ(got, (std::set<std::string>{"one", "two", "three"}));
}

TEST_F(BrokerTest, ClientLeftDeletesEphemeralChannelsAndThenTheEphemeralTopic) {
  auto b = make_broker();
  auto t = b->get_or_create_topic("t#ephemeral");
  auto c1 = t->get_or_create_channel("c1#ephemeral");
  auto c2 = t->get_or_create_channel("c2#ephemeral");
  auto s = std::make_shared<TestSubscriber>();
  ASSERT_EQ(c1->add_client(1, s), Channel::AddResult::ok);
  ASSERT_EQ(c2->add_client(2, s), Channel::AddResult::ok);
  ASSERT_EQ(c2->add_client(3, s), Channel::AddResult::ok);

  c1->remove_client(1);
  b->client_left("t#ephemeral", "c1#ephemeral");
  EXPECT_EQ(t->find_channel("c1#ephemeral"), nullptr);
  EXPECT_EQ(b->find_topic("t#ephemeral"), t);

  c2->remove_client(2);
  b->client_left("t#ephemeral", "c2#ephemeral");  // one client still there
  EXPECT_EQ(t->find_channel("c2#ephemeral"), c2);
  EXPECT_EQ(b->find_topic("t#ephemeral"), t);

  c2->remove_client(3);
  b->client_left("t#ephemeral", "c2#ephemeral");
  EXPECT_EQ(t->channel_count(), 0u);
  EXPECT_EQ(b->find_topic("t#ephemeral"), nullptr);
  b->client_left("t#ephemeral", "c2#ephemeral");  // unknown now: no-op
  b->client_left("nope", "x");
}

TEST_F(BrokerTest, ClientLeftKeepsDurableChannelsAndTopics) {
  auto b = make_broker();
  auto t = b->get_or_create_topic("t");
  auto durable = t->get_or_create_channel("d");
  auto eph = t->get_or_create_channel("e#ephemeral");
  auto s = std::make_shared<TestSubscriber>();
  ASSERT_EQ(durable->add_client(1, s), Channel::AddResult::ok);
  ASSERT_EQ(eph->add_client(2, s), Channel::AddResult::ok);
  durable->remove_client(1);
  b->client_left("t", "d");
  EXPECT_EQ(t->find_channel("d"), durable);
  eph->remove_client(2);
  b->client_left("t", "e#ephemeral");
  EXPECT_EQ(t->find_channel("e#ephemeral"), nullptr);
  EXPECT_EQ(b->find_topic("t"), t);  // durable topic stays even without channels

  // An ephemeral topic with a durable channel stays too.
  auto et = b->get_or_create_topic("et#ephemeral");
  auto ed = et->get_or_create_channel("d");
  ASSERT_EQ(ed->add_client(3, s), Channel::AddResult::ok);
  ed->remove_client(3);
  b->client_left("et#ephemeral", "d");
  EXPECT_EQ(b->find_topic("et#ephemeral"), et);
}

TEST_F(BrokerTest, DeleteTopicRemovesItsFilesAndMetadata) {
  auto b = make_broker();
  auto t = b->get_or_create_topic("gone");
  auto ch = t->get_or_create_channel("c");
  auto s = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, s), Channel::AddResult::ok);
  b->get_or_create_topic("kept");
  EXPECT_TRUE(b->delete_topic("gone"));
  EXPECT_FALSE(b->delete_topic("gone"));
  EXPECT_TRUE(s->closed());
  EXPECT_EQ(b->find_topic("gone"), nullptr);
  ASSERT_TRUE(eventually([&] {
    return std::filesystem::exists(dat()) && saved_topology() == std::set<std::string>{"kept"};
  }));
}

TEST_F(BrokerTest, HealthFollowsTheLastDiskResult) {
  auto b = make_broker();
  EXPECT_TRUE(b->healthy());
  EXPECT_EQ(b->health(), "OK");
  b->report_disk_result(std::make_error_code(std::errc::no_space_on_device));
  EXPECT_FALSE(b->healthy());
  EXPECT_EQ(b->health(), "NOK - " + std::make_error_code(std::errc::no_space_on_device).message());
  b->report_disk_result({});
  EXPECT_TRUE(b->healthy());
}

TEST_F(BrokerTest, ClientIdsStartAtOneAndIncrease) {
  auto b = make_broker();
  EXPECT_EQ(b->next_client_id(), 1u);
  EXPECT_EQ(b->next_client_id(), 2u);
}

}  // namespace
}  // namespace nsq::nsqd
