// The TCP protocol, ours against Go nsqd v1.3.0: the same bytes, the same
// answers (frames, error texts, whether the connection closes).
#include <string>
#include <vector>

#include "differential/diff_harness.h"
#include "testutil/raw_client.h"

namespace nsq::differential {
namespace {

const std::string kMagic = "  V2";

std::string mpub_messages(const std::vector<std::string>& bodies, std::int32_t count = -1) {
  std::string out = be32(static_cast<std::uint32_t>(count < 0 ? bodies.size() : count));
  for (const auto& b : bodies) out += be32(static_cast<std::uint32_t>(b.size())) + b;
  return out;
}

// MPUB with the declared body size `declared` followed by `rest` (the count
// and the messages, and whatever comes after).
std::string mpub(std::uint32_t declared, const std::string& rest) {
  return kMagic + "MPUB t\n" + be32(declared) + rest;
}

class ProtocolDiff : public DifferentialTest {};

// Go reads an MPUB's count and messages from the stream: the declared body
// size is only checked (> 0, <= --max-body-size), never used to bound the
// reads. squeaky declares the sum of the payloads alone.
TEST_F(ProtocolDiff, MpubDeclaredSizeIsNotABound) {
  ASSERT_TRUE(start_both());
  const std::vector<std::string> bodies = {"a", "bb", "ccc"};
  const std::string msgs = mpub_messages(bodies);
  const auto correct = static_cast<std::uint32_t>(msgs.size());
  for (std::uint32_t declared :
       {correct, correct - 1, 4u, 1u, 6u /* squeaky */, correct + 4, 5242880u}) {
    SCOPED_TRACE("declared " + std::to_string(declared));
    expect_same_conversation(mpub(declared, msgs));
    expect_same_conversation(mpub(declared, msgs), true);
  }
  // What follows the messages is the next command.
  expect_same_conversation(mpub(correct + 4, msgs + "NOP\n"));
  expect_same_conversation(mpub(correct + 4, msgs + "XYZ\n"));
  expect_same_conversation(mpub(correct, msgs + "PUB t\n" + be32(1) + "z"));
}

// Cluster mode's CLUSTER_FETCH does not exist outside cluster mode: the same
// fatal E_INVALID as any unknown command, with or without a body.
TEST_F(ProtocolDiff, ClusterFetchOutsideClusterModeIsAnUnknownCommand) {
  ASSERT_TRUE(start_both());
  expect_same_conversation(kMagic + "CLUSTER_FETCH\n");
  expect_same_conversation(kMagic + "CLUSTER_FETCH\n" + be32(3) + "abc");
  expect_same_conversation(kMagic + "CLUSTER_FETCH x\n");
}

TEST_F(ProtocolDiff, MpubMalformedBodies) {
  ASSERT_TRUE(start_both());
  const std::vector<std::string> bodies = {"a", "bb", "ccc"};
  const std::string msgs = mpub_messages(bodies);
  const auto correct = static_cast<std::uint32_t>(msgs.size());
  // Count larger than the messages sent: waits for more, then fails at EOF.
  expect_same_conversation(mpub(correct, mpub_messages(bodies, 4)));
  expect_same_conversation(mpub(correct, mpub_messages(bodies, 4)), true);
  // Count smaller: the remaining bytes are read as the next command.
  expect_same_conversation(mpub(correct, mpub_messages(bodies, 2)));
  expect_same_conversation(mpub(correct, mpub_messages(bodies, 2)), true);
  expect_same_conversation(mpub(correct, mpub_messages(bodies, 2) + "\n"));
  // A message size larger than the declared body.
  expect_same_conversation(mpub(8, mpub_messages({std::string(100, 'x')})));
  // Fewer bytes than the count field, then EOF.
  expect_same_conversation(mpub(4, "\x00\x00"), true);
  // Cut inside a message body, then EOF.
  expect_same_conversation(mpub(correct, msgs.substr(0, msgs.size() - 2)), true);
  // Zero and negative sizes, count 0 and negative.
  expect_same_conversation(mpub(0, msgs));
  expect_same_conversation(mpub(0xffffffffu, msgs));
  expect_same_conversation(mpub(correct, mpub_messages(bodies, 0)));
  expect_same_conversation(mpub(correct, be32(0xffffffffu)));
  expect_same_conversation(mpub(correct, be32(1) + be32(0)));
  expect_same_conversation(mpub(correct, be32(1) + be32(0xfffffff0u)));
  expect_same_conversation(mpub(5242881u, msgs));
}

TEST_F(ProtocolDiff, MpubLimitsWithASmallMaxBodySize) {
  ASSERT_TRUE(start_both({"--max-body-size=300", "--max-msg-size=200"}));
  // Messages totalling more than --max-body-size: Go accepts them.
  std::vector<std::string> big(3, std::string(150, 'm'));
  std::string msgs = mpub_messages(big);
  expect_same_conversation(mpub(300, msgs));
  // The count limit is (max-body-size - 4) / 5 = 59.
  std::vector<std::string> tiny(59, "t");
  expect_same_conversation(mpub(300, mpub_messages(tiny)));
  tiny.push_back("t");
  expect_same_conversation(mpub(300, mpub_messages(tiny)));
  // A message over --max-msg-size.
  expect_same_conversation(mpub(300, mpub_messages({std::string(201, 'x')})));
  expect_same_conversation(mpub(301, msgs));
}

// Go parses RDY counts and REQ/DPUB timeouts with wrapping 64-bit
// arithmetic: the answers name the wrapped numbers.
TEST_F(ProtocolDiff, IntegersWrapAsGo) {
  ASSERT_TRUE(start_both());
  const std::string sub = kMagic + "SUB t c\n";
  for (const char* count : {"18446744073709551615", "18446744073709551616", "18446744073709553116",
                            "99999999999999999999", "2501", "2500", "", "-1", "1a"}) {
    SCOPED_TRACE(std::string("RDY ") + count);
    expect_same_conversation(sub + "RDY " + count + "\nNOP\n");
  }
  for (const char* timeout :
       {"18446744073709551615", "18446744073709551616", "18446744073709551617",
        "99999999999999999999", "9300000000000", "3600000", "3600001", ""}) {
    SCOPED_TRACE(std::string("DPUB ") + timeout);
    expect_same_conversation(kMagic + "DPUB t " + timeout + "\n" + be32(1) + "d");
  }
}

// IDENTIFY JSON with what Go's encoding/json takes and RapidJSON alone would
// not: a lone UTF-16 surrogate escape (as U+FFFD), a number too big for a
// double under a key nsqd ignores (refused under an integer field).
TEST_F(ProtocolDiff, IdentifyJsonAsGoDecodesIt) {
  ASSERT_TRUE(start_both());
  for (const std::string& json : std::vector<std::string>{
           R"({"client_id":"\ud800"})", R"({"client_id":"a\udc00b","hostname":"\ud800\ud800"})",
           R"({"client_id":"\ud83d\ude00"})", R"({"client_id":"\ud80"})", R"({"x":1e999})",
           R"({"x":-1E+400,"client_id":"c"})", R"({"heartbeat_interval":1e999})",
           R"({"msg_timeout":1e309})", "{\"x\":" + std::string(400, '9') + "}",
           "{\"sample_rate\":" + std::string(400, '9') + "}"}) {
    SCOPED_TRACE(json);
    expect_same_conversation(kMagic + "IDENTIFY\n" + be32(static_cast<std::uint32_t>(json.size())) +
                             json + "NOP\n");
  }
}

// REQ <id> 18446744073709551615: Go turns it into -1 ms, clamped to 0, and
// requeues at once (ours used to clamp it to --max-req-timeout).
TEST_F(ProtocolDiff, ReqTimeoutWrapsAsGo) {
  ASSERT_TRUE(start_both());
  std::string outcome[2];
  Broker* brokers[2] = {&go(), &ours()};
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(brokers[i]->name);
    testutil::RawClient p, c;
    ASSERT_TRUE(p.connect(brokers[i]->tcp_port()) && p.magic() && p.pub("req", "r"));
    ASSERT_EQ(p.read(ms(5000)).frame.data, "OK");
    ASSERT_TRUE(c.connect(brokers[i]->tcp_port()) && c.magic() && c.sub("req", "c"));
    ASSERT_EQ(c.read(ms(5000)).frame.data, "OK");
    ASSERT_TRUE(c.rdy(1));
    auto first = testutil::to_test_message(c.read(ms(5000)).frame);
    ASSERT_TRUE(first);
    ASSERT_TRUE(c.send_raw("REQ " + first->id + " 18446744073709551615\n"));
    auto again = c.read(ms(2000));
    auto second = testutil::to_test_message(again.frame);
    outcome[i] =
        second ? "redelivered attempts=" + std::to_string(second->attempts) : again.describe();
  }
  EXPECT_EQ(outcome[1], outcome[0]) << "ours (left), Go's (right)";
  EXPECT_EQ(outcome[1], "redelivered attempts=2");
}

}  // namespace
}  // namespace nsq::differential
