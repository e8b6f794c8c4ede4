#include "core/metadata.h"

#include <gtest/gtest.h>

#include <string>

namespace nsq::nsqd::metadata {
namespace {

// nsqd.dat of the Go nsqd v1.3.0 fixture (shared/fixtures/go-nsqd-1.3.0-datadir.tar.gz),
// byte for byte.
constexpr std::string_view kGoFixture =
    R"({"topics":[{"name":"orders","paused":false,"channels":[{"name":"billing","paused":false},)"
    R"({"name":"audit","paused":true}]},{"name":"events","paused":false,"channels":null}],)"
    R"("version":"1.3.0"})";

TEST(Metadata, EncodeEmptyTopologyWritesNullTopics) {
  EXPECT_EQ(encode(Topology{}), R"({"topics":null,"version":"1.3.0"})");
}

TEST(Metadata, EncodeTopicWithoutChannelsWritesNullChannels) {
  Topology t;
  t.topics.push_back({"t_nochan", false, {}});
  EXPECT_EQ(encode(t),
            R"({"topics":[{"name":"t_nochan","paused":false,"channels":null}],"version":"1.3.0"})");
}

TEST(Metadata, EncodeMatchesGoKeyOrderAndCompactForm) {
  Topology t;
  t.topics.push_back({"orders", false, {{"archive", true}}});
  EXPECT_EQ(encode(t),
            R"({"topics":[{"name":"orders","paused":false,"channels":[{"name":"archive","paused":true}]}],)"
            R"("version":"1.3.0"})");
}

TEST(Metadata, EncodeKeepsOrderAndVersion) {
  Topology t;
  t.version = "1.3.0-cpp";
  t.topics.push_back({"b", true, {{"z", false}, {"a", true}}});
  t.topics.push_back({"a", false, {}});
  EXPECT_EQ(encode(t),
            R"({"topics":[{"name":"b","paused":true,"channels":[{"name":"z","paused":false},)"
            R"({"name":"a","paused":true}]},{"name":"a","paused":false,"channels":null}],)"
            R"("version":"1.3.0-cpp"})");
}

TEST(Metadata, DecodesTheGoFixture) {
  auto t = decode(kGoFixture);
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->version, "1.3.0");
  ASSERT_EQ(t->topics.size(), 2u);
  EXPECT_EQ(t->topics[0].name, "orders");
  EXPECT_FALSE(t->topics[0].paused);
  ASSERT_EQ(t->topics[0].channels.size(), 2u);
  EXPECT_EQ(t->topics[0].channels[0].name, "billing");
  EXPECT_FALSE(t->topics[0].channels[0].paused);
  EXPECT_EQ(t->topics[0].channels[1].name, "audit");
  EXPECT_TRUE(t->topics[0].channels[1].paused);
  EXPECT_EQ(t->topics[1].name, "events");
  EXPECT_TRUE(t->topics[1].channels.empty());  // "channels":null
}

TEST(Metadata, FixtureRoundTripsByteForByte) {
  auto t = decode(kGoFixture);
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(encode(*t), kGoFixture);
}

TEST(Metadata, EncodeDecodeRoundTrip) {
  Topology t;
  t.topics.push_back({"a", true, {{"c1", true}, {"c2", false}}});
  t.topics.push_back({"b.b-b_b", false, {}});
  auto back = decode(encode(t));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(encode(*back), encode(t));
}

TEST(Metadata, DecodeAcceptsNullsMissingKeysAndExtraKeys) {
  auto a = decode(R"({"topics":null,"version":"1.3.0"})");
  ASSERT_TRUE(a) << a.error();
  EXPECT_TRUE(a->topics.empty());

  auto b = decode(R"({})");
  ASSERT_TRUE(b) << b.error();
  EXPECT_TRUE(b->topics.empty());

  // Keys in another order, missing "paused"/"channels", unknown keys, whitespace.
  auto c = decode(R"( { "version" : "0.3.8", "extra" : [1,2],
      "topics" : [ { "channels" : [ { "name" : "c" } ], "name" : "t", "x" : {} } ] } )");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->version, "0.3.8");
  ASSERT_EQ(c->topics.size(), 1u);
  EXPECT_EQ(c->topics[0].name, "t");
  EXPECT_FALSE(c->topics[0].paused);
  ASSERT_EQ(c->topics[0].channels.size(), 1u);
  EXPECT_EQ(c->topics[0].channels[0].name, "c");
  EXPECT_FALSE(c->topics[0].channels[0].paused);
}

TEST(Metadata, DecodeRejectsGarbage) {
  for (std::string_view bad : {
           std::string_view(""),
           std::string_view("   "),
           std::string_view("not json"),
           std::string_view("{"),
           std::string_view(R"({"topics":[)"),
           std::string_view(R"({"topics":[{"name":"t"}])"),
           std::string_view("[]"),
           std::string_view("42"),
           std::string_view(R"("string")"),
           std::string_view(R"({"topics":5})"),
           std::string_view(R"({"topics":{"name":"t"}})"),
           std::string_view(R"({"topics":[5]})"),
           std::string_view(R"({"topics":[{"name":5}]})"),
       }) {
    auto t = decode(bad);
    EXPECT_FALSE(t) << "accepted: " << bad;
    if (!t) {
      EXPECT_FALSE(t.error().empty());
    }
  }
}

TEST(Metadata, DecodeRejectsEveryTruncationOfTheFixture) {
  for (std::size_t n = 0; n < kGoFixture.size(); ++n) {
    EXPECT_FALSE(decode(kGoFixture.substr(0, n))) << "accepted prefix of " << n << " bytes";
  }
}

TEST(Metadata, DecodeRejectsTrailingGarbage) {
  std::string s(kGoFixture);
  EXPECT_FALSE(decode(s + "}"));
  EXPECT_FALSE(decode(s + "{}"));
  EXPECT_FALSE(decode(s + "x"));
}

TEST(Metadata, DecodeRejectsWronglyTypedFieldsAsGoDoes) {
  EXPECT_FALSE(decode(R"({"topics":[{"name":"t","paused":"yes"}]})"));
  EXPECT_FALSE(decode(R"({"topics":[{"name":"t","channels":5}]})"));
  EXPECT_FALSE(decode(R"({"topics":[{"name":"t","channels":[5]}]})"));
  EXPECT_FALSE(decode(R"({"topics":[{"name":"t","channels":[{"name":"c","paused":1}]}]})"));
  EXPECT_FALSE(decode(R"({"topics":null,"version":5})"));
}

TEST(Metadata, DecodeKeepsNamelessTopicsForTheLoaderToSkip) {
  auto a = decode(R"({"topics":[{"paused":true},{"name":"ok"}]})");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->topics.size(), 2u);
  EXPECT_EQ(a->topics[0].name, "");
  EXPECT_EQ(a->topics[1].name, "ok");
  auto b = decode(R"({"topics":[null,{"name":"ok"}]})");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->topics.size(), 2u);
  EXPECT_TRUE(decode("null"));
}

TEST(Metadata, DecodeRejectsDataAfterANulByte) {
  using namespace std::string_view_literals;
  EXPECT_FALSE(decode("{\"topics\":null}\0garbage"sv));
  EXPECT_FALSE(decode("{\"topics\":null}\0\0\0\0"sv));
}

}  // namespace
}  // namespace nsq::nsqd::metadata
