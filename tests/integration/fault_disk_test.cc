// Disk faults (issue 8): nsqd's data directory on a small tmpfs that fills
// up, and a corrupt segment file found at start.
//
// Full disk: publishes fail with the protocol's error (E_PUB_FAILED,
// E_MPUB_FAILED, HTTP 503 with a JSON message as Go sends, /ping unhealthy),
// every message acknowledged before is still delivered, and publishing works
// again once space is freed (an operator deletes a file). --mem-queue-size=0 so every
// publish reaches the disk at once instead of after 10,000 messages.

#include <cstdio>
#include <iostream>

#include "integration/fault_harness.h"
#include "testutil/files.h"

namespace nsq::integration {
namespace {

using namespace fault;

std::string padded(const char* prefix, int i, std::size_t size) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%06d-", prefix, i);
  std::string body(buf);
  body.resize(size, 'x');
  return body;
}

class FaultDiskTest : public NsqdTest {};

// Every durability mode: the default (no fsync per put), --sync-every=1 and
// --sync-publish (both preallocate their segments, the case issue 23 found
// zeroing acknowledged records after a zero fill ENOSPC cut short).
class FaultFullDiskTest : public NsqdTest,
                          public ::testing::WithParamInterface<std::vector<std::string>> {};

TEST_P(FaultFullDiskTest, FullDiskFailsPublishesKeepsAcknowledgedAndRecovers) {
  SmallTmpfs fs(data_dir_.path() / "mnt", 4096);
  if (!fs.mounted()) GTEST_SKIP() << "needs a tmpfs mount (root/CAP_SYS_ADMIN): " << fs.why();
  // Space an operator frees later.
  testutil::write_file(fs.path() / "ballast", std::string(512 * 1024, 'b'));
  std::vector<std::string> flags = {"--mem-queue-size=0", "--max-bytes-per-file=262144"};
  flags.insert(flags.end(), GetParam().begin(), GetParam().end());
  start(flags, true, fs.path());
  ASSERT_TRUE(need_http());

  // A channel exists, so each message also goes through the topic-to-channel
  // hop, which must not drop what it cannot write.
  RawClient holder = consumer("full", "c", 0);

  std::set<std::string> acked;
  std::string first_error;
  {
    RawClient p = client();
    for (int i = 0; i < 20000; ++i) {
      std::string body = padded("m", i, 1000);
      ASSERT_TRUE(p.pub("full", body));
      auto r = p.read_skip_heartbeats(kReply);
      if (is_response(r, "OK")) {
        acked.insert(body);
        continue;
      }
      first_error = r.describe();
      ASSERT_EQ(r.status, RawClient::ReadStatus::frame) << first_error;
      EXPECT_EQ(r.frame.type, FrameType::error) << first_error;
      EXPECT_TRUE(r.frame.data.starts_with("E_PUB_FAILED")) << first_error;
      EXPECT_TRUE(p.wait_closed(kReply)) << "E_PUB_FAILED is fatal";
      break;
    }
  }
  ASSERT_FALSE(first_error.empty()) << "4 MiB filled without an error; acked " << acked.size();
  ASSERT_GT(acked.size(), 1000u);
  std::cout << "[disk-full] acknowledged before the first error: " << acked.size() << ", then "
            << first_error << std::endl;
  EXPECT_TRUE(nsqd_->wait_for_log("No space left on device", kReply))
      << "the log names the cause; tail:\n"
      << tail(nsqd_->log());

  // While full: MPUB fails, HTTP /pub answers 500 with a message, /ping is unhealthy.
  {
    RawClient p = client();
    std::vector<std::string> batch;
    for (int i = 0; i < 10; ++i) batch.push_back(padded("mp", i, 1000));
    ASSERT_TRUE(p.mpub("full", batch));
    auto r = p.read_skip_heartbeats(kReply);
    EXPECT_TRUE(r.status == RawClient::ReadStatus::frame && r.frame.type == FrameType::error &&
                r.frame.data.starts_with("E_MPUB_FAILED"))
        << r.describe();
  }
  // Go nsqd v1.3.0 answers any failed put with 503 {"message":"EXITING"};
  // ours keeps that status and shape so clients see what they know.
  auto pub = testutil::http_once(http_port(), "POST", "/pub?topic=full", padded("h", 0, 1000));
  ASSERT_TRUE(pub);
  EXPECT_EQ(pub->status, 503) << pub->describe();
  EXPECT_TRUE(pub->body.find("\"message\"") != std::string::npos) << pub->describe();
  auto ping = testutil::http_once(http_port(), "GET", "/ping");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 500) << ping->describe();
  EXPECT_TRUE(ping->body.starts_with("NOK")) << ping->describe();
  std::cout << "[disk-full] /pub: " << pub->status << " " << pub->body
            << "; /ping: " << ping->status << " " << ping->body << std::endl;

  // Space freed: publishing works again and /ping recovers with it.
  std::filesystem::remove(fs.path() / "ballast");
  {
    RawClient p = client();
    ASSERT_TRUE(p.pub("full", padded("after", 0, 1000)));
    EXPECT_TRUE(got_response(p, "OK"));
  }
  EXPECT_TRUE(eventually(
      [&] {
        auto r = testutil::http_once(http_port(), "GET", "/ping");
        return r && r->status == 200 && r->body == "OK";
      },
      kReply))
      << "/ping stays unhealthy after a successful write";

  // Nothing acknowledged was lost: every OK'd body is delivered.
  holder.rdy(500);
  std::set<std::string> seen = drain(holder, acked.size() + 1);
  std::size_t missing = 0;
  std::string example;
  for (const auto& b : acked) {
    if (!seen.count(b)) {
      if (example.empty()) example = b.substr(0, 8);
      ++missing;
    }
  }
  EXPECT_EQ(missing, 0u) << "acknowledged and lost, e.g. " << example << " (of " << acked.size()
                         << ")";
  EXPECT_TRUE(seen.count(padded("after", 0, 1000)));
  holder.close();
  stop_clean();  // before the tmpfs goes away
}

INSTANTIATE_TEST_SUITE_P(Modes, FaultFullDiskTest,
                         ::testing::Values(std::vector<std::string>{},
                                           std::vector<std::string>{"--sync-every=1"},
                                           std::vector<std::string>{"--sync-publish"}),
                         [](const auto& mode) {
                           if (mode.param.empty()) return std::string("Default");
                           return mode.param[0] == "--sync-every=1" ? std::string("SyncEvery1")
                                                                    : std::string("SyncPublish");
                         });

// A segment whose first record length is garbage: renamed .bad, named in the
// log, and every record of the other segments still delivered.
TEST_F(FaultDiskTest, CorruptSegmentAtStartIsRenamedBadAndTheRestServed) {
  constexpr int kCount = 40;
  start({"--mem-queue-size=0", "--max-bytes-per-file=2048"});
  {
    RawClient p = client();
    for (int i = 0; i < kCount; ++i) {
      ASSERT_TRUE(p.pub("crpt", padded("c", i, 200)));
      ASSERT_TRUE(got_response(p, "OK"));
    }
  }
  stop_clean();

  const auto seg = data_dir_.path() / "crpt.diskqueue.000001.dat";
  ASSERT_TRUE(std::filesystem::exists(seg)) << "expected several segments of 2 KiB";
  // Records: [u32 size][8 ts][2 attempts][16 id][body]; collect seg 1's bodies.
  std::string bytes = testutil::read_file(seg);
  std::set<std::string> in_bad;
  for (std::size_t at = 0; at + 4 <= bytes.size();) {
    uint32_t n = (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
                 (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
    in_bad.insert(bytes.substr(at + 4 + 26, n - 26));
    at += 4 + n;
  }
  ASSERT_FALSE(in_bad.empty());
  bytes.replace(0, 4, "\xff\xff\xff\xff");
  testutil::write_file(seg, bytes);

  start({"--mem-queue-size=0", "--max-bytes-per-file=2048"});
  RawClient c = consumer("crpt", "c", 100);
  std::size_t want = kCount - in_bad.size();
  std::set<std::string> seen = drain(c, want, 3000ms);
  EXPECT_EQ(seen.size(), want);
  for (int i = 0; i < kCount; ++i) {
    std::string b = padded("c", i, 200);
    if (!in_bad.count(b)) {
      EXPECT_TRUE(seen.count(b)) << "lost " << b.substr(0, 8);
    }
  }
  EXPECT_TRUE(got_nothing(c)) << "a record of the corrupt segment came back";
  auto bad = seg;
  bad += ".bad";
  EXPECT_TRUE(std::filesystem::exists(bad));
  EXPECT_FALSE(std::filesystem::exists(seg));
  EXPECT_TRUE(nsqd_->wait_for_log("crpt.diskqueue.000001.dat", kReply))
      << "the log names the bad file; tail:\n"
      << tail(nsqd_->log());
  std::string log = nsqd_->log();
  auto at = log.find(".bad");
  auto from = log.rfind('\n', at);
  std::cout << "[corrupt] " << in_bad.size() << " of " << kCount
            << " records in the bad segment; log: "
            << log.substr(from + 1, log.find('\n', at) - from - 1) << std::endl;
}

// Issue 23: the segment being written loses its tail (a power cut after the
// meta file was written, here the last record cut off): every whole record
// before the damage is delivered, the segment is not taken for bad, and
// publishing goes on after it. The same cut a few bytes into a record.
TEST_F(FaultDiskTest, WriteSegmentCutShortDeliversEveryWholeRecord) {
  constexpr int kCount = 1000;
  for (std::size_t cut_into_last : {std::size_t{0}, std::size_t{50}}) {
    SCOPED_TRACE("cut " + std::to_string(cut_into_last) + " bytes more");
    const std::string topic = "cut" + std::to_string(cut_into_last);
    start({"--mem-queue-size=0"});
    {
      RawClient p = client();
      for (int i = 0; i < kCount; ++i) {
        ASSERT_TRUE(p.pub(topic, padded("w", i, 87)));
        ASSERT_TRUE(got_response(p, "OK"));
      }
    }
    stop_clean();
    const auto seg = data_dir_.path() / (topic + ".diskqueue.000000.dat");
    std::string bytes = testutil::read_file(seg);
    const std::size_t record = 4 + 26 + 87;
    ASSERT_EQ(bytes.size(), kCount * record);
    bytes.resize(bytes.size() - record - cut_into_last);
    testutil::write_file(seg, bytes);

    start({"--mem-queue-size=0"});
    RawClient c = consumer(topic, "c", 200);
    const int whole = cut_into_last == 0 ? kCount - 1 : kCount - 2;
    std::set<std::string> seen = drain(c, static_cast<std::size_t>(whole), 3000ms);
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(whole));
    for (int i = 0; i < whole; ++i) EXPECT_TRUE(seen.count(padded("w", i, 87))) << "lost " << i;
    EXPECT_TRUE(got_nothing(c));
    EXPECT_TRUE(nsqd_->wait_for_log(seg.filename().string(), kReply))
        << "the log names the file; tail:\n"
        << tail(nsqd_->log());
    auto bad = seg;
    bad += ".bad";
    EXPECT_FALSE(std::filesystem::exists(bad));
    {
      RawClient p = client();
      ASSERT_TRUE(p.pub(topic, "after"));
      ASSERT_TRUE(got_response(p, "OK"));
    }
    auto m = c.read_skip_heartbeats(kReply);
    auto msg = testutil::to_test_message(m.frame);
    ASSERT_TRUE(msg) << m.describe();
    EXPECT_EQ(msg->body, "after");
    c.close();
    stop_clean();
  }
}

// Issue 23: a meta file whose read position is past its write position
// (an impossible checkpoint): every record of every segment is delivered,
// as when the meta file is garbage, instead of being discarded.
TEST_F(FaultDiskTest, ReadPositionPastWritePositionDeliversEverything) {
  constexpr int kCount = 2000;
  start({"--mem-queue-size=0", "--max-bytes-per-file=32768"});
  {
    RawClient p = client();
    for (int i = 0; i < kCount; i += 100) {
      std::vector<std::string> batch;
      for (int j = i; j < i + 100; ++j) batch.push_back(padded("r", j, 100));
      ASSERT_TRUE(p.mpub("impossible", batch));
      ASSERT_TRUE(got_response(p, "OK"));
    }
  }
  stop_clean();
  const auto meta = data_dir_.path() / "impossible.diskqueue.meta.dat";
  std::string text = testutil::read_file(meta);
  // depth, then "readFileNum,readPos", then "writeFileNum,writePos".
  std::size_t l1 = text.find('\n'), l2 = text.find('\n', l1 + 1);
  std::string write_line = text.substr(l2 + 1, text.find('\n', l2 + 1) - l2 - 1);
  std::int64_t write_file = std::stoll(write_line.substr(0, write_line.find(',')));
  std::int64_t write_pos = std::stoll(write_line.substr(write_line.find(',') + 1));
  ASSERT_GT(write_file, 1) << "expected several segments: " << text;
  testutil::write_file(meta, std::to_string(kCount) + "\n" + std::to_string(write_file) + "," +
                                 std::to_string(write_pos + 1000) + "\n" + write_line + "\n");

  start({"--mem-queue-size=0", "--max-bytes-per-file=32768"});
  RawClient c = consumer("impossible", "c", 500);
  std::set<std::string> seen = drain(c, kCount, 3000ms);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kCount));
  EXPECT_TRUE(nsqd_->wait_for_log("is past write position", kReply)) << tail(nsqd_->log());
  std::cout << "[impossible-meta] delivered " << seen.size() << " of " << kCount << std::endl;
  c.close();
  stop_clean();
}

}  // namespace
}  // namespace nsq::integration
