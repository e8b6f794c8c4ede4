// snappy and deflate negotiated by IDENTIFY (tcp-protocol.md §6.1, upgrade
// sequence), messages through the compressed streams, and corrupt compressed
// input closing only the client that sent it.

#include "integration/feature_harness.h"

namespace nsq::integration {
namespace {

using namespace std::string_literals;

const std::string kSnappyId = "\xff\x06\x00\x00sNaPpY"s;

class CompressionTest : public NsqdTest {};

TEST_F(CompressionTest, SnappyRoundTrip) {
  start();
  Upgrades u;
  u.snappy = true;
  FeatureClient producer, consumer;
  std::string resp = connect_upgraded(producer, port(), u);
  EXPECT_NE(resp.find("\"snappy\":true"), std::string::npos) << resp;
  connect_upgraded(consumer, port(), u);
  ASSERT_TRUE(subscribe(consumer, "snappy_t", "c"));
  EXPECT_TRUE(round_trip(producer, consumer, "snappy_t", 3000));
}

TEST_F(CompressionTest, DeflateRoundTripAtEachLevelCappedByMax) {
  start({"--max-deflate-level=5"});
  for (int level : {1, 5, 9}) {
    Upgrades u;
    u.deflate = true;
    u.deflate_level = level;
    FeatureClient producer, consumer;
    std::string resp = connect_upgraded(producer, port(), u);
    EXPECT_NE(resp.find("\"deflate\":true,\"deflate_level\":" + std::to_string(std::min(level, 5))),
              std::string::npos)
        << resp;
    connect_upgraded(consumer, port(), u);
    std::string topic = "deflate_t" + std::to_string(level);
    ASSERT_TRUE(subscribe(consumer, topic, "c"));
    EXPECT_TRUE(round_trip(producer, consumer, topic, 1500)) << "level " << level;
  }
}

TEST_F(CompressionTest, SwitchedOffByFlags) {
  start({"--snappy=false", "--deflate=false"});
  for (bool snappy : {true, false}) {
    Upgrades u;
    u.snappy = snappy;
    u.deflate = !snappy;
    FeatureClient c;
    std::string resp = connect_upgraded(c, port(), u);
    EXPECT_NE(resp.find("\"deflate\":false"), std::string::npos) << resp;
    EXPECT_NE(resp.find("\"snappy\":false"), std::string::npos) << resp;
    c.send("PUB plain_t\n" + be32(1) + "x");
    auto ok = c.read_frame(kReply);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->data, "OK");
  }
}

TEST_F(CompressionTest, BothCompressionsRefused) {
  start();
  FeatureClient c;
  ASSERT_TRUE(c.connect(port()));
  c.identify(R"({"feature_negotiation":true,"snappy":true,"deflate":true})");
  EXPECT_TRUE(
      fatal_error(c, "E_IDENTIFY_FAILED cannot enable both deflate and snappy compression"));
}

// One bad client among good ones: the bad one is closed with a log line, the
// others keep publishing and consuming.
class CorruptInputTest : public NsqdTest {
 protected:
  void expect_closed_alone(FeatureClient& bad, const std::string& log_needle) {
    EXPECT_TRUE(bad.wait_closed(kReply)) << "corrupt input did not close the client";
    EXPECT_TRUE(nsqd_->wait_for_log(log_needle, kReply)) << tail(nsqd_->log());
    EXPECT_TRUE(round_trip(good_producer_, good_consumer_, "good_t", 200));
  }

  void SetUp() override {
    NsqdTest::SetUp();
    if (IsSkipped()) return;
    start();
    Upgrades u;
    u.snappy = true;
    connect_upgraded(good_producer_, port(), u);
    connect_upgraded(good_consumer_, port(), u);
    ASSERT_TRUE(subscribe(good_consumer_, "good_t", "c"));
  }

  FeatureClient good_producer_, good_consumer_;
};

TEST_F(CorruptInputTest, SnappyBadChecksum) {
  Upgrades u;
  u.snappy = true;
  FeatureClient bad;
  connect_upgraded(bad, port(), u);
  std::string cmd = "PUB bad_t\n" + be32(5) + "hello";
  // A stored chunk whose CRC is wrong.
  std::string chunk =
      "\x01"s + static_cast<char>(cmd.size() + 4) + "\x00\x00"s + "\x00\x00\x00\x00"s + cmd;
  bad.send_under_compression(kSnappyId + chunk);
  expect_closed_alone(bad, "snappy: corrupt input (checksum mismatch)");
}

TEST_F(CorruptInputTest, SnappyCorruptCompressedChunk) {
  Upgrades u;
  u.snappy = true;
  FeatureClient bad;
  connect_upgraded(bad, port(), u);
  // Announces 100 bytes of output, then a copy from before the start.
  std::string block = "\x64\x0a\xff\xff"s;
  std::string chunk =
      "\x00"s + static_cast<char>(block.size() + 4) + "\x00\x00"s + "\x12\x34\x56\x78"s + block;
  bad.send_under_compression(kSnappyId + chunk);
  expect_closed_alone(bad, "snappy: corrupt input");
}

TEST_F(CorruptInputTest, SnappyReservedChunk) {
  Upgrades u;
  u.snappy = true;
  FeatureClient bad;
  connect_upgraded(bad, port(), u);
  bad.send_under_compression(kSnappyId + "\x05\x01\x00\x00z"s);
  expect_closed_alone(bad, "snappy: unsupported (reserved unskippable) chunk");
}

TEST_F(CorruptInputTest, DeflateNoise) {
  Upgrades u;
  u.deflate = true;
  u.deflate_level = 6;
  FeatureClient bad;
  connect_upgraded(bad, port(), u);
  std::string noise(4096, '\0');
  unsigned x = 12345;
  for (char& ch : noise) ch = static_cast<char>((x = x * 1103515245 + 12345) >> 16);
  noise[0] = '\x07';  // a final block of the reserved type: invalid at once
  bad.send_under_compression(noise);
  expect_closed_alone(bad, "flate: corrupt input");
}

TEST_F(CorruptInputTest, SnappyDataBeforeStreamIdentifier) {
  Upgrades u;
  u.snappy = true;
  FeatureClient bad;
  connect_upgraded(bad, port(), u);
  bad.send_under_compression("\x01\x05\x00\x00\x00\x00\x00\x00z"s);
  expect_closed_alone(bad, "snappy: stream does not start with the stream identifier");
}

}  // namespace
}  // namespace nsq::integration
