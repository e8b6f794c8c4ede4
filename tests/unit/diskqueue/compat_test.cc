// Files in go-diskqueue's format, built byte by byte from the spec, read by
// ours; files written by ours checked byte by byte against the same format;
// and the queues of a data directory written by Go nsqd v1.3.0.
#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::record_bytes;
using testutil::TempDir;
using testutil::write_file;

Options go_nsqd_options(const std::filesystem::path& dir, std::string name) {
  Options o;
  o.name = std::move(name);
  o.data_path = dir;
  o.min_msg_size = 26;
  o.max_msg_size = 1024 * 1024 + 26;
  o.max_bytes_per_file = 4096;
  return o;
}

// An nsqd message payload: 8-byte timestamp, 2-byte attempts, 16-byte id, body.
std::string message_payload(int i, std::string_view body) {
  std::string out(8, '\0');
  out += '\0';
  out += '\1';
  char id[17];
  std::snprintf(id, sizeof id, "%016x", i);
  out.append(id, 16);
  out += body;
  return out;
}

TEST(Compat, ReadsQueueWrittenInGoFormat) {
  TempDir dir;
  // Segment 3 fully read except the last record; 4 is the write segment.
  std::string seg3 =
      record_bytes(message_payload(0, "old")) + record_bytes(message_payload(1, "b1"));
  std::string seg4 =
      record_bytes(message_payload(2, "c1")) + record_bytes(message_payload(3, "c2"));
  write_file(dir.path() / "orders.diskqueue.000003.dat", seg3);
  write_file(dir.path() / "orders.diskqueue.000004.dat", seg4);
  std::int64_t first_len =
      static_cast<std::int64_t>(record_bytes(message_payload(0, "old")).size());
  write_file(dir.path() / "orders.diskqueue.meta.dat",
             "3\n3," + std::to_string(first_len) + "\n4," + std::to_string(seg4.size()) + "\n");

  auto q = DiskQueue::open(go_nsqd_options(dir.path(), "orders"));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 3);
  EXPECT_EQ((*q)->try_read()->substr(26), "b1");
  EXPECT_EQ((*q)->try_read()->substr(26), "c1");
  EXPECT_EQ((*q)->try_read()->substr(26), "c2");
  EXPECT_FALSE((*q)->try_read());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "orders.diskqueue.000003.dat"));
}

TEST(Compat, WritesFilesGoCanRead) {
  TempDir dir;
  auto o = go_nsqd_options(dir.path(), "t:c");
  o.max_bytes_per_file = 100;
  auto q = DiskQueue::open(o);
  ASSERT_TRUE(q);
  std::string a = message_payload(1, std::string(40, 'a'));  // 66 bytes + 4
  std::string b = message_payload(2, std::string(10, 'b'));  // 36 bytes + 4
  ASSERT_FALSE((*q)->put(a));
  ASSERT_FALSE((*q)->put(b));  // 70 + 40 > 100: rolls to segment 1
  ASSERT_FALSE((*q)->close());
  EXPECT_EQ(testutil::read_file(dir.path() / "t:c.diskqueue.000000.dat"), record_bytes(a));
  EXPECT_EQ(testutil::read_file(dir.path() / "t:c.diskqueue.000001.dat"), record_bytes(b));
  EXPECT_EQ(testutil::read_file(dir.path() / "t:c.diskqueue.meta.dat"), "2\n0,0\n1,40\n");
  auto perms = std::filesystem::status(dir.path() / "t:c.diskqueue.000000.dat").permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST(Compat, SegmentNumbersWiderThanSixDigits) {
  TempDir dir;
  std::string seg = record_bytes(message_payload(7, "wide"));
  write_file(dir.path() / "w.diskqueue.1234567.dat", seg);
  write_file(dir.path() / "w.diskqueue.meta.dat",
             "1\n1234567,0\n1234567," + std::to_string(seg.size()) + "\n");
  auto q = DiskQueue::open(go_nsqd_options(dir.path(), "w"));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->try_read()->substr(26), "wide");
}

// The fixture directory written by Go nsqd v1.3.0 (shared/fixtures/README.md).
class GoNsqdFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string cmd = "tar -xzf '" NSQ_SHARED_DIR "/fixtures/go-nsqd-1.3.0-datadir.tar.gz' -C '" +
                      dir_.path().string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    for (auto& e : std::filesystem::recursive_directory_iterator(dir_.path())) {
      if (e.path().filename() == "nsqd.dat") data_ = e.path().parent_path();
    }
    ASSERT_FALSE(data_.empty()) << "no nsqd.dat in the fixture";
  }
  TempDir dir_;
  std::filesystem::path data_;
};

TEST_F(GoNsqdFixture, ChannelQueuesHoldAllThousandOrders) {
  for (std::string name : {"orders:billing", "orders:audit"}) {
    auto q = DiskQueue::open(go_nsqd_options(data_, name));
    ASSERT_TRUE(q) << name;
    EXPECT_EQ((*q)->depth(), 1000) << name;
    // Go nsqd spilled from its memory queue, so disk order is not publish
    // order: each body exactly once is the promise.
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
      auto r = (*q)->try_read();
      ASSERT_TRUE(r) << name << " " << i;
      ASSERT_TRUE(seen.insert(r->substr(26)).second) << "duplicate " << r->substr(26);
    }
    for (int i = 0; i < 1000; ++i) {
      char want[32];
      std::snprintf(want, sizeof want, "order-%04d", i);
      EXPECT_TRUE(seen.count(want)) << want;
    }
    EXPECT_FALSE((*q)->try_read());
    EXPECT_EQ((*q)->depth(), 0);
  }
}

TEST_F(GoNsqdFixture, TopicQueues) {
  auto orders = DiskQueue::open(go_nsqd_options(data_, "orders"));
  ASSERT_TRUE(orders);
  EXPECT_EQ((*orders)->depth(), 0);
  EXPECT_FALSE((*orders)->try_read());

  auto events = DiskQueue::open(go_nsqd_options(data_, "events"));
  ASSERT_TRUE(events);
  EXPECT_EQ((*events)->depth(), 50);
  for (int i = 0; i < 50; ++i) {
    char want[32];
    std::snprintf(want, sizeof want, "event-%02d", i);
    EXPECT_EQ((*events)->try_read()->substr(26), want);
  }
}

TEST_F(GoNsqdFixture, OursWritesOnAfterGoAndReopens) {
  {
    auto q = DiskQueue::open(go_nsqd_options(data_, "events"));
    ASSERT_TRUE(q);
    ASSERT_FALSE((*q)->put(message_payload(99, "ours")));
    ASSERT_FALSE((*q)->close());
  }
  auto q = DiskQueue::open(go_nsqd_options(data_, "events"));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 51);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE((*q)->try_read());
  EXPECT_EQ((*q)->try_read()->substr(26), "ours");
}

}  // namespace
}  // namespace nsq::diskqueue
