#include "nsq/identify.h"

#include <gtest/gtest.h>

namespace nsq {
namespace {

const IdentifyLimits kLimits;

ProtocolError fails(const IdentifyRequest& r, const IdentifyLimits& l = kLimits) {
  const auto n = negotiate_identify(r, l);
  EXPECT_FALSE(n);
  return n ? ProtocolError{} : n.error();
}

NegotiatedIdentify passes(const IdentifyRequest& r, const IdentifyLimits& l = kLimits) {
  const auto n = negotiate_identify(r, l);
  EXPECT_TRUE(n) << (n ? "" : n.error().render());
  return n ? *n : NegotiatedIdentify{};
}

TEST(NegotiateIdentifyTest, DefaultsForAnEmptyRequest) {
  const auto n = passes({});
  EXPECT_EQ(n.heartbeat_interval_ms, 30000);
  EXPECT_EQ(n.output_buffer_size, 16384);
  EXPECT_EQ(n.output_buffer_timeout_ms, 250);
  EXPECT_EQ(n.sample_rate, 0);
  EXPECT_EQ(n.msg_timeout_ms, 60000);
  EXPECT_FALSE(n.feature_negotiation);
  EXPECT_FALSE(n.tls_v1);
  EXPECT_FALSE(n.deflate);
  EXPECT_FALSE(n.snappy);
}

TEST(NegotiateIdentifyTest, DefaultsComeFromLimits) {
  IdentifyLimits l;
  l.default_heartbeat_interval_ms = 1234;
  l.default_output_buffer_size = 100;
  l.default_output_buffer_timeout_ms = 77;
  l.default_msg_timeout_ms = 5555;
  const auto n = passes({}, l);
  EXPECT_EQ(n.heartbeat_interval_ms, 1234);
  EXPECT_EQ(n.output_buffer_size, 100);
  EXPECT_EQ(n.output_buffer_timeout_ms, 77);
  EXPECT_EQ(n.msg_timeout_ms, 5555);
}

TEST(NegotiateIdentifyTest, CopiesTheStrings) {
  IdentifyRequest r;
  r.client_id = "c";
  r.hostname = "h";
  r.user_agent = "u";
  const auto n = passes(r);
  EXPECT_EQ(n.client_id, "c");
  EXPECT_EQ(n.hostname, "h");
  EXPECT_EQ(n.user_agent, "u");
}

TEST(NegotiateIdentifyTest, HeartbeatInterval) {
  IdentifyRequest r;
  r.heartbeat_interval = -1;
  EXPECT_EQ(passes(r).heartbeat_interval_ms, -1);
  r.heartbeat_interval = 1000;
  EXPECT_EQ(passes(r).heartbeat_interval_ms, 1000);
  r.heartbeat_interval = 60000;
  EXPECT_EQ(passes(r).heartbeat_interval_ms, 60000);
  for (int64_t v : {int64_t{500}, int64_t{999}, int64_t{60001}, int64_t{-2}}) {
    r.heartbeat_interval = v;
    EXPECT_EQ(fails(r),
              (ProtocolError{"E_BAD_BODY",
                             "IDENTIFY heartbeat interval (" + std::to_string(v) + ") is invalid",
                             true}));
  }
  EXPECT_EQ(fails({.heartbeat_interval = 500}).render(),
            "E_BAD_BODY IDENTIFY heartbeat interval (500) is invalid");
}

TEST(NegotiateIdentifyTest, OutputBufferTimeout) {
  IdentifyRequest r;
  r.output_buffer_timeout = -1;
  EXPECT_EQ(passes(r).output_buffer_timeout_ms, 0);
  r.output_buffer_timeout = 25;
  EXPECT_EQ(passes(r).output_buffer_timeout_ms, 25);
  r.output_buffer_timeout = 30000;
  EXPECT_EQ(passes(r).output_buffer_timeout_ms, 30000);
  r.output_buffer_timeout = 10;
  EXPECT_EQ(fails(r).render(), "E_BAD_BODY IDENTIFY output buffer timeout (10) is invalid");
  r.output_buffer_timeout = 30001;
  EXPECT_EQ(fails(r).text, "IDENTIFY output buffer timeout (30001) is invalid");
  r.output_buffer_timeout = -5;
  EXPECT_EQ(fails(r).text, "IDENTIFY output buffer timeout (-5) is invalid");
}

TEST(NegotiateIdentifyTest, OutputBufferSize) {
  IdentifyRequest r;
  r.output_buffer_size = -1;
  auto n = passes(r);
  EXPECT_EQ(n.output_buffer_size, 1);
  EXPECT_EQ(n.output_buffer_timeout_ms, 0);
  // -1 forces the timeout to 0 even when one was requested.
  r.output_buffer_timeout = 100;
  EXPECT_EQ(passes(r).output_buffer_timeout_ms, 0);
  r = {};
  r.output_buffer_size = 64;
  EXPECT_EQ(passes(r).output_buffer_size, 64);
  r.output_buffer_size = 65536;
  EXPECT_EQ(passes(r).output_buffer_size, 65536);
  r.output_buffer_size = 10;
  EXPECT_EQ(fails(r).render(), "E_BAD_BODY IDENTIFY output buffer size (10) is invalid");
  r.output_buffer_size = 65537;
  EXPECT_EQ(fails(r).text, "IDENTIFY output buffer size (65537) is invalid");
}

TEST(NegotiateIdentifyTest, SampleRate) {
  IdentifyRequest r;
  r.sample_rate = 99;
  EXPECT_EQ(passes(r).sample_rate, 99);
  r.sample_rate = 100;
  EXPECT_EQ(fails(r).render(), "E_BAD_BODY IDENTIFY sample rate (100) is invalid");
  r.sample_rate = -1;
  EXPECT_EQ(fails(r).text, "IDENTIFY sample rate (-1) is invalid");
}

TEST(NegotiateIdentifyTest, MsgTimeout) {
  IdentifyRequest r;
  r.msg_timeout = 1000;
  EXPECT_EQ(passes(r).msg_timeout_ms, 1000);
  r.msg_timeout = 900000;
  EXPECT_EQ(passes(r).msg_timeout_ms, 900000);
  r.msg_timeout = 10;
  EXPECT_EQ(fails(r).render(), "E_BAD_BODY IDENTIFY msg timeout (10) is invalid");
  r.msg_timeout = 900001;
  EXPECT_EQ(fails(r).text, "IDENTIFY msg timeout (900001) is invalid");
  r.msg_timeout = -1;  // no -1 special case for msg_timeout
  EXPECT_EQ(fails(r).text, "IDENTIFY msg timeout (-1) is invalid");
}

TEST(NegotiateIdentifyTest, ChecksInNsqdOrder) {
  IdentifyRequest r;
  r.heartbeat_interval = 1;
  r.output_buffer_timeout = 1;
  r.output_buffer_size = 1;
  r.sample_rate = 100;
  r.msg_timeout = 1;
  EXPECT_EQ(fails(r).text, "IDENTIFY heartbeat interval (1) is invalid");
  r.heartbeat_interval = 0;
  EXPECT_EQ(fails(r).text, "IDENTIFY output buffer timeout (1) is invalid");
  r.output_buffer_timeout = 0;
  EXPECT_EQ(fails(r).text, "IDENTIFY output buffer size (1) is invalid");
  r.output_buffer_size = 0;
  EXPECT_EQ(fails(r).text, "IDENTIFY sample rate (100) is invalid");
  r.sample_rate = 0;
  EXPECT_EQ(fails(r).text, "IDENTIFY msg timeout (1) is invalid");
  r.msg_timeout = 0;
  passes(r);
}

TEST(NegotiateIdentifyTest, LimitsAreConfigurable) {
  IdentifyLimits l;
  l.max_heartbeat_interval_ms = 2000;
  l.min_output_buffer_timeout_ms = 1;
  l.max_output_buffer_timeout_ms = 50;
  l.max_output_buffer_size = 100;
  l.max_msg_timeout_ms = 1500;
  EXPECT_TRUE(negotiate_identify({.heartbeat_interval = 2000}, l));
  EXPECT_FALSE(negotiate_identify({.heartbeat_interval = 2001}, l));
  EXPECT_TRUE(negotiate_identify({.output_buffer_timeout = 1}, l));
  EXPECT_FALSE(negotiate_identify({.output_buffer_timeout = 51}, l));
  EXPECT_TRUE(negotiate_identify({.output_buffer_size = 100}, l));
  EXPECT_FALSE(negotiate_identify({.output_buffer_size = 101}, l));
  EXPECT_TRUE(negotiate_identify({.msg_timeout = 1500}, l));
  EXPECT_FALSE(negotiate_identify({.msg_timeout = 1501}, l));
}

TEST(NegotiateIdentifyTest, NoUpgradesWithoutFeatureNegotiation) {
  IdentifyRequest r;
  r.tls_v1 = r.deflate = r.snappy = true;  // both compressions: no error either
  IdentifyLimits l;
  l.tls_available = true;
  const auto n = passes(r, l);
  EXPECT_FALSE(n.feature_negotiation);
  EXPECT_FALSE(n.tls_v1);
  EXPECT_FALSE(n.deflate);
  EXPECT_FALSE(n.snappy);
}

TEST(NegotiateIdentifyTest, TlsNeedsACertificate) {
  IdentifyRequest r;
  r.feature_negotiation = r.tls_v1 = true;
  EXPECT_FALSE(passes(r).tls_v1);
  IdentifyLimits l;
  l.tls_available = true;
  EXPECT_TRUE(passes(r, l).tls_v1);
}

TEST(NegotiateIdentifyTest, CompressionNegotiation) {
  IdentifyRequest r;
  r.feature_negotiation = true;
  r.snappy = true;
  EXPECT_TRUE(passes(r).snappy);
  IdentifyLimits off;
  off.snappy_enabled = false;
  off.deflate_enabled = false;
  EXPECT_FALSE(passes(r, off).snappy);
  r.snappy = false;
  r.deflate = true;
  EXPECT_TRUE(passes(r).deflate);
  EXPECT_FALSE(passes(r, off).deflate);
}

TEST(NegotiateIdentifyTest, BothCompressions) {
  IdentifyRequest r;
  r.feature_negotiation = r.deflate = r.snappy = true;
  const auto e = fails(r);
  EXPECT_EQ(e.code, "E_IDENTIFY_FAILED");
  EXPECT_EQ(e.render(), "E_IDENTIFY_FAILED cannot enable both deflate and snappy compression");
  EXPECT_TRUE(e.fatal);
  // Only negotiated values count: with snappy disabled on the server, deflate wins.
  IdentifyLimits l;
  l.snappy_enabled = false;
  const auto n = passes(r, l);
  EXPECT_TRUE(n.deflate);
  EXPECT_FALSE(n.snappy);
}

TEST(NegotiateIdentifyTest, DeflateLevel) {
  IdentifyRequest r;
  r.feature_negotiation = true;
  r.deflate = true;
  r.deflate_level = 3;
  EXPECT_EQ(passes(r).deflate_level, 3);
  r.deflate_level = 0;
  EXPECT_EQ(passes(r).deflate_level, 6);
  r.deflate_level = -4;
  EXPECT_EQ(passes(r).deflate_level, 6);
  r.deflate_level = 9;
  EXPECT_EQ(passes(r).deflate_level, 6);  // capped at --max-deflate-level
  IdentifyLimits l;
  l.max_deflate_level = 9;
  EXPECT_EQ(passes(r, l).deflate_level, 9);
  l.max_deflate_level = 2;
  EXPECT_EQ(passes(r, l).deflate_level, 2);
  // Without deflate the requested level is ignored but the cap still applies.
  r.deflate = false;
  r.deflate_level = 1;
  EXPECT_EQ(passes(r).deflate_level, 6);
  EXPECT_EQ(passes(r, l).deflate_level, 2);
  l.deflate_enabled = false;
  r.deflate = true;
  r.deflate_level = 1;
  EXPECT_EQ(passes(r, l).deflate_level, 2);
}

TEST(IdentifyResponseJsonTest, DefaultClientByteForByte) {
  IdentifyRequest r;
  r.feature_negotiation = true;
  EXPECT_EQ(identify_response_json(passes(r), kLimits),
            R"({"max_rdy_count":2500,"version":"1.3.0","max_msg_timeout":900000,)"
            R"("msg_timeout":60000,"tls_v1":false,"deflate":false,"deflate_level":6,)"
            R"("max_deflate_level":6,"snappy":false,"sample_rate":0,"auth_required":false,)"
            R"("output_buffer_size":16384,"output_buffer_timeout":250})");
}

TEST(IdentifyResponseJsonTest, NegotiatedValues) {
  IdentifyLimits l;
  l.tls_available = true;
  l.auth_required = true;
  l.max_rdy_count = 100;
  l.max_deflate_level = 9;
  l.max_msg_timeout_ms = 123456;
  IdentifyRequest r;
  r.feature_negotiation = r.tls_v1 = r.deflate = true;
  r.deflate_level = 8;
  r.sample_rate = 42;
  r.msg_timeout = 5000;
  r.output_buffer_size = -1;
  EXPECT_EQ(identify_response_json(passes(r, l), l, "1.3.0-cpp"),
            R"({"max_rdy_count":100,"version":"1.3.0-cpp","max_msg_timeout":123456,)"
            R"("msg_timeout":5000,"tls_v1":true,"deflate":true,"deflate_level":8,)"
            R"("max_deflate_level":9,"snappy":false,"sample_rate":42,"auth_required":true,)"
            R"("output_buffer_size":1,"output_buffer_timeout":0})");
}

TEST(IdentifyResponseJsonTest, VersionIsEscapedLikeGo) {
  const std::string j = identify_response_json({}, kLimits, "a\"b\\<&>\n");
  EXPECT_NE(j.find(R"("version":"a\"b\\\u003c\u0026\u003e\n")"), std::string::npos) << j;
}

TEST(NegotiateIdentifyJsonTest, DecodeFailureIsBadBody) {
  const auto n = negotiate_identify_json("{bad", kLimits);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().render(), "E_BAD_BODY IDENTIFY failed to decode JSON body");
  EXPECT_TRUE(n.error().fatal);
}

TEST(NegotiateIdentifyJsonTest, EndToEnd) {
  const auto n = negotiate_identify_json(
      R"({"client_id":"c","hostname":"h","user_agent":"go-nsq/1.1.0","feature_negotiation":true,)"
      R"("heartbeat_interval":10000,"msg_timeout":30000,"short_id":"h","long_id":"h.x"})",
      kLimits);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->heartbeat_interval_ms, 10000);
  EXPECT_EQ(n->msg_timeout_ms, 30000);
  EXPECT_TRUE(n->feature_negotiation);
  EXPECT_EQ(n->user_agent, "go-nsq/1.1.0");
  const auto e = negotiate_identify_json(R"({"heartbeat_interval":500})", kLimits);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().render(), "E_BAD_BODY IDENTIFY heartbeat interval (500) is invalid");
}

}  // namespace
}  // namespace nsq
