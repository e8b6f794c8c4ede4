#include "core/metadata.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

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
  EXPECT_EQ(
      encode(t),
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
  // Or anywhere else: RapidJSON would take it for the end of the input.
  EXPECT_FALSE(decode("{\"topics\":[{\"name\":\"a\0b\"}]}"sv));
  EXPECT_FALSE(decode("{\0}"sv));
  EXPECT_FALSE(decode("\0"sv));
}

// Go's encoding/json refuses nesting deeper than 10,000 (arrays and objects
// alike, wherever they are); RapidJSON's recursive parser would overflow the
// stack at ~150,000, so decode parses iteratively.
std::string nested_lists(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(Metadata, DecodeRefusesNestingDeeperThanGoWithoutRecursing) {
  for (int depth : {10'000, 200'000}) {
    auto t = decode(R"({"topics":)" + nested_lists(depth) + "}");
    ASSERT_FALSE(t) << depth;
    EXPECT_NE(t.error().find("invalid character '[' exceeded max depth"), std::string::npos)
        << t.error();
  }
  std::string objects = R"({"x":)";
  for (int i = 0; i < 200'000; ++i) objects += R"({"a":)";
  objects += "1" + std::string(200'000, '}') + "}";
  auto t = decode(objects);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("invalid character '{' exceeded max depth"), std::string::npos)
      << t.error();
  // Unterminated: the limit is hit before the end is missed.
  EXPECT_FALSE(decode(std::string(200'000, '[')));
}

TEST(Metadata, DecodeNestingLimitIsGos) {
  // The object itself is one level: 9,999 lists inside it make 10,000.
  auto deepest = decode(R"({"x":)" + nested_lists(9'999) + R"(,"topics":[{"name":"t"}]})");
  ASSERT_TRUE(deepest) << deepest.error();
  ASSERT_EQ(deepest->topics.size(), 1u);
  EXPECT_EQ(deepest->topics[0].name, "t");
  // One more is refused even inside an unknown key, which Go checks too.
  auto too_deep = decode(R"({"x":)" + nested_lists(10'000) + R"(,"topics":[{"name":"t"}]})");
  ASSERT_FALSE(too_deep);
  EXPECT_NE(too_deep.error().find("exceeded max depth"), std::string::npos) << too_deep.error();
}

TEST(Metadata, DecodeMatchesKeysCaseInsensitivelyAsGo) {
  auto t = decode(
      R"({"TOPICS":[{"NAME":"orders","Paused":true,"ChAnNeLs":[{"nAME":"c","PAUSED":true}]}],)"
      R"("VERSION":"1.2.0"})");
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->version, "1.2.0");
  ASSERT_EQ(t->topics.size(), 1u);
  EXPECT_EQ(t->topics[0].name, "orders");
  EXPECT_TRUE(t->topics[0].paused);
  ASSERT_EQ(t->topics[0].channels.size(), 1u);
  EXPECT_EQ(t->topics[0].channels[0].name, "c");
  EXPECT_TRUE(t->topics[0].channels[0].paused);
  // Escaped keys are matched after unescaping.
  auto e = decode(R"({"topic\u0073":[{"n\u0061me":"e"}]})");
  ASSERT_TRUE(e) << e.error();
  ASSERT_EQ(e->topics.size(), 1u);
  EXPECT_EQ(e->topics[0].name, "e");
}

TEST(Metadata, DecodeFoldsKeysAsGo119) {
  // U+017F (long s) matches an s: nsqd v1.3.0 (Go 1.19) refuses this file.
  EXPECT_FALSE(decode("{\"topic\xc5\xbf\":\"x\"}"));
  auto s = decode("{\"topic\xc5\xbf\":[{\"name\":\"long_s\"}]}");
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->topics.size(), 1u);
  EXPECT_EQ(s->topics[0].name, "long_s");
  // U+0131 (dotless i) does not match an i in Go 1.19 (it does from Go
  // 1.21): an unknown key, and nsqd v1.3.0 starts on this file.
  EXPECT_TRUE(
      decode("{\"top\xc4\xb1"
             "cs\":\"x\"}"));
  EXPECT_TRUE(
      decode("{\"top\xc4\xb0"
             "cs\":\"x\"}"));  // U+0130, dotted capital I
  EXPECT_TRUE(decode(R"({"topics_":"x","topic":"x","ttopics":"x"})"));
}

TEST(Metadata, DecodeRefusesWrongTypesUnderAnyCaseOfKey) {
  auto t = decode(R"({"Topics":"x"})");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error(),
            "json: cannot unmarshal string into Go struct field Metadata.topics of type "
            "[]nsqd.TopicMetadata");
  EXPECT_FALSE(decode(R"({"topics":[{"NAME":1}]})"));
  EXPECT_FALSE(decode(R"({"topics":[{"name":"t","CHANNELS":{}}]})"));
}

TEST(Metadata, DecodeLastDuplicateKeyWins) {
  auto t = decode(R"({"topics":[{"name":"first"}],"topics":[{"name":"last"}]})");
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->topics.size(), 1u);
  EXPECT_EQ(t->topics[0].name, "last");
  auto n =
      decode(R"({"topics":[{"name":"a","paused":true,"name":"b"}],"version":"x","Version":"y"})");
  ASSERT_TRUE(n) << n.error();
  EXPECT_EQ(n->topics[0].name, "b");
  EXPECT_TRUE(n->topics[0].paused);
  EXPECT_EQ(n->version, "y");
}

// Go decodes a list over the one a duplicate key left: element i is decoded
// into the old element i (keys absent from the new object keep their old
// values), up to the longest list seen; null or [] starts afresh. Each
// expected result was checked on nsqd v1.3.0.
TEST(Metadata, DecodeDuplicateListsMergeAsGo) {
  auto merged = [](std::string_view json) {
    auto t = decode(json);
    EXPECT_TRUE(t) << t.error();
    return t ? encode(*t) : std::string();
  };
  EXPECT_EQ(merged(R"({"topics":[{"name":"a","paused":true}],"topics":[{"name":"b"}]})"),
            R"({"topics":[{"name":"b","paused":true,"channels":null}],"version":"1.3.0"})");
  EXPECT_EQ(merged(R"({"topics":[{"name":"a","paused":true},{"name":"c","paused":true}],)"
                   R"("topics":[{"name":"b"}],"topics":[{"name":"d"},{"name":"e"}]})"),
            R"({"topics":[{"name":"d","paused":true,"channels":null},)"
            R"({"name":"e","paused":true,"channels":null}],"version":"1.3.0"})");
  EXPECT_EQ(merged(R"({"topics":[{"name":"a"},null],"topics":[null,{"name":"b"}]})"),
            R"({"topics":[{"name":"a","paused":false,"channels":null},)"
            R"({"name":"b","paused":false,"channels":null}],"version":"1.3.0"})");
  EXPECT_EQ(merged(R"({"topics":[{"name":"a","channels":[{"name":"c","paused":true}]}],)"
                   R"("topics":[{"channels":[{"name":"d"}]}]})"),
            R"({"topics":[{"name":"a","paused":false,"channels":[{"name":"d","paused":true}]}],)"
            R"("version":"1.3.0"})");
  for (std::string_view reset : {std::string_view("[]"), std::string_view("null")}) {
    EXPECT_EQ(merged(std::string(R"({"topics":[{"name":"a","paused":true}],"topics":)") +
                     std::string(reset) + R"(,"topics":[{"name":"b"}]})"),
              R"({"topics":[{"name":"b","paused":false,"channels":null}],"version":"1.3.0"})")
        << reset;
  }
}

TEST(Metadata, DecodeReportsTypeErrorsInGosWords) {
  auto error = [](std::string_view json) {
    auto t = decode(json);
    return t ? std::string("accepted") : t.error();
  };
  const std::string prefix = "json: cannot unmarshal ";
  EXPECT_EQ(error("[1]"), prefix + "array into Go value of type nsqd.Metadata");
  EXPECT_EQ(error(R"("x")"), prefix + "string into Go value of type nsqd.Metadata");
  EXPECT_EQ(error(R"({"topics":[1]})"),
            prefix + "number into Go struct field Metadata.topics of type nsqd.TopicMetadata");
  EXPECT_EQ(error(R"({"version":1.5})"),
            prefix + "number into Go struct field Metadata.version of type string");
  EXPECT_EQ(error(R"({"topics":[{"name":"a","paused":"x"}]})"),
            prefix + "string into Go struct field TopicMetadata.topics.paused of type bool");
  EXPECT_EQ(error(R"({"topics":[{"name":"a","channels":5}]})"),
            prefix +
                "number into Go struct field TopicMetadata.topics.channels of type "
                "[]nsqd.ChannelMetadata");
  EXPECT_EQ(error(R"({"topics":[{"channels":[[]]}]})"),
            prefix +
                "array into Go struct field TopicMetadata.topics.channels of type "
                "nsqd.ChannelMetadata");
  EXPECT_EQ(
      error(R"({"topics":[{"channels":[{"name":true}]}]})"),
      prefix + "bool into Go struct field ChannelMetadata.topics.channels.name of type string");
  EXPECT_EQ(
      error(R"({"topics":[{"channels":[{"paused":{}}]}]})"),
      prefix + "object into Go struct field ChannelMetadata.topics.channels.paused of type bool");
  // The first type error is the one reported.
  EXPECT_EQ(error(R"({"topics":"x","version":5})"),
            prefix + "string into Go struct field Metadata.topics of type []nsqd.TopicMetadata");
}

TEST(Metadata, DecodeReportsASyntaxErrorBeforeAnEarlierTypeError) {
  // Go checks the syntax of the whole document before decoding it.
  auto t = decode(R"({"topics":[{"name":"a","paused":5}],"version":[})");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().find("json: cannot unmarshal"), std::string::npos) << t.error();
  auto deep = decode(R"({"topics":5,"x":)" + nested_lists(10'001) + "}");
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().find("exceeded max depth"), std::string::npos) << deep.error();
  EXPECT_EQ(decode(R"({"topics":[1,2)").error(), "unexpected end of JSON input");
}

TEST(Metadata, DecodeTakesAnyNumberGoDoes) {
  // Valid JSON numbers RapidJSON alone refuses as too big for a double.
  auto t = decode(R"({"x":[1e999,-1E+999,)" + std::string(400, '9') +
                  R"(,-0.5e-999],"topics":[{"name":"t"}]})");
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->topics.size(), 1u);
  auto typed = decode(R"({"topics":[{"name":"t","paused":1e999}]})");
  ASSERT_FALSE(typed);
  EXPECT_EQ(
      typed.error(),
      "json: cannot unmarshal number into Go struct field TopicMetadata.topics.paused of type "
      "bool");
  // Invalid numbers stay invalid.
  for (std::string_view bad : {"{\"x\":--1}", "{\"x\":01}", "{\"x\":-}", "{\"x\":1.}", "{\"x\":1e}",
                               "{\"x\":.5}", "{\"x\":+1}", "{\"x\":1e999.5}", "{\"x\":0x10}"}) {
    EXPECT_FALSE(decode(bad)) << bad;
  }
  // Digits inside strings are left alone.
  auto s = decode(R"({"version":"1e999 \"-0\" 12"})");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->version, R"(1e999 "-0" 12)");
}

TEST(Metadata, DecodeTakesALoneSurrogateEscapeAsGo) {
  // Go decodes it as U+FFFD; RapidJSON alone refuses the document.
  auto t = decode(R"({"x":"\ud800","topics":[{"name":"t\udc00"}]})");
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->topics.size(), 1u);
  EXPECT_EQ(t->topics[0].name, "t\xef\xbf\xbd");  // then skipped by the loader as invalid
}

}  // namespace
}  // namespace nsq::nsqd::metadata

namespace nsq::nsqd::metadata {
namespace {

// Our settings ride in a "settings" object Go's decoder skips.
TEST(MetadataSettings, WrittenBesideGosFieldsAndReadBack) {
  Topology t;
  TopicEntry topic{"t", false, {}, R"({"message_ttl":"1m0s"})"};
  topic.channels.push_back(
      {"c", true, R"({"max_attempts":3,"dead_letter_topic":"d","message_ttl":"0s"})"});
  topic.channels.push_back({"plain", false, {}});
  t.topics.push_back(topic);
  const std::string text = encode(t);
  EXPECT_EQ(text,
            R"({"topics":[{"name":"t","paused":false,"settings":{"message_ttl":"1m0s"},)"
            R"("channels":[{"name":"c","paused":true,"settings":{"max_attempts":3,)"
            R"("dead_letter_topic":"d","message_ttl":"0s"}},{"name":"plain","paused":false}]}],)"
            R"("version":"1.3.0"})");
  auto decoded = decode(text);
  ASSERT_TRUE(decoded) << decoded.error();
  ASSERT_EQ(decoded->topics.size(), 1u);
  EXPECT_EQ(decoded->topics[0].channels.size(), 2u);
  EXPECT_TRUE(decoded->topics[0].channels[0].paused);
  const auto stored = decode_settings(text);
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].topic, "t");
  EXPECT_EQ(stored[0].channel, "");
  EXPECT_EQ(stored[0].json, R"({"message_ttl":"1m0s"})");
  EXPECT_EQ(stored[1].channel, "c");
  EXPECT_EQ(stored[1].json, R"({"max_attempts":3,"dead_letter_topic":"d","message_ttl":"0s"})");
}

TEST(MetadataSettings, WhatIsNotAnObjectIsSkipped) {
  const auto stored = decode_settings(
      R"({"topics":[{"name":"a","settings":5},{"settings":{}},{"name":"b","settings":{},)"
      R"("channels":[{"name":"c","settings":"x"},{"name":"d","settings":{"max_attempts":1}}]}]})");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].topic + ":" + stored[0].channel, "b:");
  EXPECT_EQ(stored[1].topic + ":" + stored[1].channel, "b:d");
  EXPECT_TRUE(decode_settings("not json").empty());
}

}  // namespace
}  // namespace nsq::nsqd::metadata
