#include <string>

#include <gtest/gtest.h>

#include "nsq/error.h"
#include "nsq/identify.h"

namespace nsq {
namespace {

using namespace std::string_literals;

IdentifyRequest ok(std::string_view json) {
  const auto r = parse_identify_json(json);
  EXPECT_TRUE(r) << json;
  return r ? *r : IdentifyRequest{};
}

void bad(std::string_view json) {
  const auto r = parse_identify_json(json);
  ASSERT_FALSE(r) << json;
  EXPECT_EQ(r.error(), errc::bad_json);
}

TEST(ParseIdentifyJsonTest, AllFields) {
  const auto r = ok(R"({"client_id":"c","hostname":"h.example","user_agent":"go-nsq/1.1.0",
    "heartbeat_interval":5000,"output_buffer_size":-1,"output_buffer_timeout":100,
    "sample_rate":10,"msg_timeout":2000,"deflate_level":3,"feature_negotiation":true,
    "tls_v1":true,"snappy":true,"deflate":true})");
  EXPECT_EQ(r.client_id, "c");
  EXPECT_EQ(r.hostname, "h.example");
  EXPECT_EQ(r.user_agent, "go-nsq/1.1.0");
  EXPECT_EQ(r.heartbeat_interval, 5000);
  EXPECT_EQ(r.output_buffer_size, -1);
  EXPECT_EQ(r.output_buffer_timeout, 100);
  EXPECT_EQ(r.sample_rate, 10);
  EXPECT_EQ(r.msg_timeout, 2000);
  EXPECT_EQ(r.deflate_level, 3);
  EXPECT_TRUE(r.feature_negotiation);
  EXPECT_TRUE(r.tls_v1);
  EXPECT_TRUE(r.snappy);
  EXPECT_TRUE(r.deflate);
}

// Go's encoding/json decodes an escaped surrogate that is not half of a
// pair as U+FFFD (issue 17: ours refused the IDENTIFY and closed).
TEST(ParseIdentifyJsonTest, LoneSurrogateEscapesBecomeReplacementCharacters) {
  EXPECT_EQ(ok(R"({"client_id":"a\ud800b"})").client_id,
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(ok(R"({"client_id":"\udc00"})").client_id, "\xef\xbf\xbd");
  EXPECT_EQ(ok(R"({"client_id":"\ud800\ud800"})").client_id, "\xef\xbf\xbd\xef\xbf\xbd");
  // A valid pair is kept; an escaped backslash before "u" is no escape.
  EXPECT_EQ(ok(R"({"client_id":"\ud83d\ude00"})").client_id, "\xf0\x9f\x98\x80");
  EXPECT_EQ(ok(R"({"client_id":"\\ud800"})").client_id, "\\ud800");
  EXPECT_EQ(ok(R"({"user_agent":"x","hostname":"\uD800\u0041"})").hostname,
            "\xef\xbf\xbd"
            "A");
  bad(R"({"client_id":"\ud80"})");
}

TEST(ParseIdentifyJsonTest, EmptyObjectGivesZeroValues) {
  EXPECT_EQ(ok("{}"), IdentifyRequest{});
  EXPECT_EQ(ok(" \t\r\n{ } \n"), IdentifyRequest{});
}

TEST(ParseIdentifyJsonTest, TopLevelNullIsAcceptedAsGoDoes) {
  EXPECT_EQ(ok("null"), IdentifyRequest{});
}

TEST(ParseIdentifyJsonTest, TopLevelMustBeAnObject) {
  for (const char* j : {"[]", "[{}]", "1", "\"s\"", "true", "false"}) bad(j);
}

TEST(ParseIdentifyJsonTest, KeysAreCaseInsensitive) {
  const auto r =
      ok(R"({"CLIENT_ID":"a","HostName":"b","Feature_Negotiation":true,"MSG_TIMEOUT":1500})");
  EXPECT_EQ(r.client_id, "a");
  EXPECT_EQ(r.hostname, "b");
  EXPECT_TRUE(r.feature_negotiation);
  EXPECT_EQ(r.msg_timeout, 1500);
}

TEST(ParseIdentifyJsonTest, GoUnicodeFoldsInKeys) {
  // Go 1.19 (which built nsqd v1.3.0): U+017F (long s) matches an s.
  EXPECT_TRUE(ok("{\"\xc5\xbfnappy\":true}").snappy);
  // U+0131 (dotless i) does not match an i (it does from Go 1.21), nor do
  // other non-ASCII letters: the checked nsqd v1.3.0 replies OK to
  // {"cl\u0131ent_id":5}, as for any unknown key.
  EXPECT_EQ(ok("{\"cl\xc4\xb1"
               "ent_id\":5}")
                .client_id,
            "");
  EXPECT_EQ(ok("{\"cl\xc3\xad"
               "ent_id\":\"x\"}")
                .client_id,
            "");
}

TEST(ParseIdentifyJsonTest, EscapedKeys) {
  EXPECT_EQ(ok(R"({"client\u005fid":"e"})").client_id, "e");
}

TEST(ParseIdentifyJsonTest, UnknownKeysOfAnyShapeAreIgnored) {
  const auto r = ok(R"({"short_id":"s","long_id":"l","extra":{"a":[1,2,{"b":null}],"c":1.5e300},
    "arr":[[[]]],"n":null,"t":true,"big":123456789012345678901234567890,"hostname":"h"})");
  EXPECT_EQ(r.hostname, "h");
  EXPECT_EQ(r.client_id, "");
}

// Go's scanner takes numbers no double holds; RapidJSON alone would not.
TEST(ParseIdentifyJsonTest, NumbersBeyondADoubleAsGo) {
  EXPECT_EQ(ok(R"({"x":1e999,"y":-1E+400,"z":[1e309],"hostname":"h"})").hostname, "h");
  EXPECT_EQ(ok("{\"x\":" + std::string(400, '9') + ",\"hostname\":\"h\"}").hostname, "h");
  EXPECT_EQ(ok(R"({"x":1e-999999,"msg_timeout":7})").msg_timeout, 7);
  // Under an integer field, as Go: not an integer.
  bad(R"({"heartbeat_interval":1e999})");
  bad("{\"sample_rate\":" + std::string(400, '9') + "}");
}

TEST(ParseIdentifyJsonTest, KnownKeysInsideNestedValuesAreNotFields) {
  const auto r =
      ok(R"({"x":{"client_id":"inner","heartbeat_interval":1.5},"y":[{"snappy":"no"}]})");
  EXPECT_EQ(r, IdentifyRequest{});
}

TEST(ParseIdentifyJsonTest, NullLeavesTheDefault) {
  const auto r = ok(R"({"client_id":null,"heartbeat_interval":null,"snappy":null})");
  EXPECT_EQ(r, IdentifyRequest{});
  // Last key wins, and a later null does not reset an earlier value.
  EXPECT_EQ(ok(R"({"client_id":"a","client_id":null})").client_id, "a");
  EXPECT_EQ(ok(R"({"client_id":"a","CLIENT_ID":"b"})").client_id, "b");
}

TEST(ParseIdentifyJsonTest, IntFieldsRejectFractionsAndExponents) {
  bad(R"({"heartbeat_interval":1000.0})");
  bad(R"({"heartbeat_interval":1000.5})");
  bad(R"({"msg_timeout":1e3})");
  bad(R"({"msg_timeout":1E3})");
  bad(R"({"output_buffer_size":-1.0})");
  EXPECT_EQ(ok(R"({"deflate_level":-0})").deflate_level, 0);
  EXPECT_EQ(ok(R"({"output_buffer_timeout":-1})").output_buffer_timeout, -1);
}

TEST(ParseIdentifyJsonTest, IntRanges) {
  EXPECT_EQ(ok(R"({"msg_timeout":9223372036854775807})").msg_timeout, INT64_MAX);
  EXPECT_EQ(ok(R"({"msg_timeout":-9223372036854775808})").msg_timeout, INT64_MIN);
  bad(R"({"msg_timeout":9223372036854775808})");
  bad(R"({"msg_timeout":-9223372036854775809})");
  bad(R"({"msg_timeout":100000000000000000000000})");
  // sample_rate is an int32 in nsqd.
  EXPECT_EQ(ok(R"({"sample_rate":2147483647})").sample_rate, 2147483647);
  EXPECT_EQ(ok(R"({"sample_rate":-2147483648})").sample_rate, -2147483648LL);
  bad(R"({"sample_rate":2147483648})");
  bad(R"({"sample_rate":-2147483649})");
}

TEST(ParseIdentifyJsonTest, WrongTypes) {
  bad(R"({"heartbeat_interval":"1000"})");
  bad(R"({"heartbeat_interval":true})");
  bad(R"({"heartbeat_interval":{}})");
  bad(R"({"heartbeat_interval":[]})");
  bad(R"({"client_id":5})");
  bad(R"({"client_id":false})");
  bad(R"({"client_id":["a"]})");
  bad(R"({"client_id":{"a":1}})");
  bad(R"({"snappy":"true"})");
  bad(R"({"snappy":1})");
  bad(R"({"tls_v1":{}})");
}

TEST(ParseIdentifyJsonTest, SyntaxErrors) {
  for (const char* j : {"",
                        " ",
                        "{",
                        "}",
                        "{\"a\"}",
                        "{\"a\":}",
                        "{\"a\":1,}",
                        "{,}",
                        "{'a':1}",
                        "{a:1}",
                        "{\"a\":01}",
                        "{\"a\":.5}",
                        "{\"a\":1.}",
                        "{\"a\":-}",
                        "{\"a\":NaN}",
                        "{\"a\":Infinity}",
                        "{\"a\":tru}",
                        "{\"a\":\"x}",
                        "{\"a\":1}//",
                        "{} {}",
                        "{}x",
                        "{/*c*/}",
                        "\xef\xbb\xbf{}"}) {
    bad(j);
  }
}

TEST(ParseIdentifyJsonTest, TrailingWhitespaceOnlyAndNoNulTricks) {
  EXPECT_TRUE(parse_identify_json("{}  \n\t\r "));
  bad("{}\0"s);
  bad("{}\0garbage"s);
  bad("{\"client_id\":\"a\0b\"}"s);
  bad("{\"client_id\":\"a\nb\"}");  // raw control characters are not allowed in strings
}

TEST(ParseIdentifyJsonTest, StringEscapesAndUtf8) {
  EXPECT_EQ(ok(R"({"client_id":"a\"b\\c\/d\n\u00e9\ud83d\ude00"})").client_id,
            "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(ok(R"({"client_id":"\u0000"})").client_id, "\0"s);
  // Invalid UTF-8 is replaced by U+FFFD, as Go does.
  EXPECT_EQ(ok("{\"hostname\":\"a\xff"
               "b\"}")
                .hostname,
            "a\xef\xbf\xbd"
            "b");
}

TEST(ParseIdentifyJsonTest, NestingDepthLimitIsGos) {
  const auto nested = [](int depth) {
    return "{\"x\":" + std::string(static_cast<size_t>(depth - 1), '[') +
           std::string(static_cast<size_t>(depth - 1), ']') + "}";
  };
  EXPECT_TRUE(parse_identify_json(nested(10000)));
  bad(nested(10001));
  bad(std::string(1000000, '['));  // no recursion: must not overflow the stack
  bad("{\"x\":" + std::string(1000000, '{'));
}

}  // namespace
}  // namespace nsq
