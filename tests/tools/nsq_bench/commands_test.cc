#include "commands.h"

#include <gtest/gtest.h>

#include <string>

#include "nsq/endian.h"
#include "nsq/identify.h"
#include "nsq/mpub.h"

namespace nsq::bench {
namespace {

using namespace std::string_literals;

TEST(PublishBatch, BatchOfOneIsAPub) {
  PublishBatch b("t", 1, 5);
  EXPECT_EQ(b.bytes(), "PUB t\n\0\0\0\x05"s + "aaaaa");
  EXPECT_EQ(b.count(), 1);
  ASSERT_EQ(b.body_offsets().size(), 1u);
  EXPECT_EQ(b.body_offsets()[0], 10u);
}

// The part after "MPUB <topic>\n" and the 4-byte body size.
std::string_view mpub_body(std::string_view bytes, std::string_view topic) {
  const std::size_t header = 5 + topic.size() + 1;
  EXPECT_EQ(bytes.substr(0, header), "MPUB " + std::string(topic) + "\n");
  const uint32_t size = get_u32be(bytes.data() + header);
  EXPECT_EQ(size, bytes.size() - header - 4);
  return bytes.substr(header + 4);
}

TEST(PublishBatch, MpubParsesAsNsqdWould) {
  PublishBatch b("sub_bench", 200, 100);
  auto msgs = parse_mpub_body(mpub_body(b.bytes(), "sub_bench"), MpubLimits{});
  ASSERT_TRUE(msgs);
  ASSERT_EQ(msgs->size(), 200u);
  for (const auto m : *msgs) EXPECT_EQ(m, std::string(100, 'a'));
  // The offsets are where the parser found the bodies.
  ASSERT_EQ(b.body_offsets().size(), 200u);
  for (std::size_t i = 0; i < msgs->size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>((*msgs)[i].data() - b.bytes().data()), b.body_offsets()[i])
        << i;
  }
}

TEST(PublishBatch, StampWritesBigEndianTimeAtTheStartOfEveryBody) {
  PublishBatch b("t", 3, 20);
  const int64_t stamp = 0x0102030405060708;
  b.stamp(stamp);
  auto msgs = parse_mpub_body(mpub_body(b.bytes(), "t"), MpubLimits{});
  ASSERT_TRUE(msgs);
  for (const auto m : *msgs) {
    ASSERT_EQ(m.size(), 20u);
    EXPECT_EQ(get_i64be(m.data()), stamp);
    EXPECT_EQ(m.substr(8), std::string(12, 'a'));
  }
  b.stamp(stamp + 1);  // re-stamping in place for the next send
  msgs = parse_mpub_body(mpub_body(b.bytes(), "t"), MpubLimits{});
  EXPECT_EQ(get_i64be((*msgs)[2].data()), stamp + 1);
}

TEST(PublishBatch, StampOnPub) {
  PublishBatch b("t", 1, 8);
  b.stamp(42);
  EXPECT_EQ(get_i64be(b.bytes().data() + 10), 42);
}

TEST(Identify, JsonIsWhatNsqdDecodes) {
  IdentifySettings s;
  s.hostname = "host\"1";
  s.output_buffer_size = 65536;
  s.output_buffer_timeout_ms = -1;
  const std::string json = identify_json(s);
  auto req = parse_identify_json(json);
  ASSERT_TRUE(req) << json;
  EXPECT_EQ(req->client_id, "nsq_bench");
  EXPECT_EQ(req->hostname, "host\"1");
  EXPECT_EQ(req->user_agent, "nsq_bench/1.3.0");
  EXPECT_TRUE(req->feature_negotiation);
  EXPECT_EQ(req->output_buffer_size, 65536);
  EXPECT_EQ(req->output_buffer_timeout, -1);
  EXPECT_FALSE(req->snappy);
  EXPECT_FALSE(req->deflate);
  EXPECT_FALSE(req->tls_v1);
}

TEST(Identify, DefaultsAreLeftToTheServer) {
  const std::string json = identify_json(IdentifySettings{});
  EXPECT_EQ(json.find("output_buffer"), std::string::npos) << json;
}

TEST(Identify, CommandFraming) { EXPECT_EQ(identify_command("{}"), "IDENTIFY\n\0\0\0\x02{}"s); }

TEST(Commands, SubRdyFin) {
  EXPECT_EQ(sub_command("sub_bench", "ch"), "SUB sub_bench ch\n");
  EXPECT_EQ(rdy_command(2500), "RDY 2500\n");
  std::string out;
  append_fin(out, "0123456789abcdef");
  append_fin(out, "fedcba9876543210");
  EXPECT_EQ(out, "FIN 0123456789abcdef\nFIN fedcba9876543210\n");
}

TEST(JsonIntField, ReadsNsqdIdentifyReply) {
  IdentifyLimits limits;
  limits.max_rdy_count = 1234;
  IdentifyRequest request;
  request.feature_negotiation = true;
  auto negotiated = negotiate_identify(request, limits);
  ASSERT_TRUE(negotiated);
  const std::string reply = identify_response_json(*negotiated, limits);
  EXPECT_EQ(json_int_field(reply, "max_rdy_count"), 1234);
  EXPECT_EQ(json_int_field(reply, "msg_timeout"), 60000);
  EXPECT_EQ(json_int_field(reply, "version"), std::nullopt);  // a string
  EXPECT_EQ(json_int_field(reply, "absent"), std::nullopt);
}

TEST(JsonIntField, EdgeCases) {
  EXPECT_EQ(json_int_field(R"({"a":-5})", "a"), -5);
  EXPECT_EQ(json_int_field(R"({"a":1.5})", "a"), std::nullopt);
  EXPECT_EQ(json_int_field(R"({"a":1e3})", "a"), std::nullopt);
  EXPECT_EQ(json_int_field(R"({"a":7)", "a"), 7);
}

}  // namespace
}  // namespace nsq::bench
