#include "filename_format.h"

#include <gtest/gtest.h>

namespace nsq::to_file {
namespace {

TEST(FilenameFormat, DefaultWithoutRotationDropsRev) {
  FilenameSettings s;
  auto name = topic_filename_template(s, "orders", "host1.example.com", 42);
  ASSERT_TRUE(name);
  EXPECT_EQ(*name, "orders.host1.<DATETIME>.log");
}

TEST(FilenameFormat, RevIsKeptAndRequiredWhenFilesMayRepeat) {
  FilenameSettings s;
  s.gzip = true;
  auto name = topic_filename_template(s, "orders", "host1", 42);
  ASSERT_TRUE(name);
  EXPECT_EQ(*name, "orders.host1<REV>.<DATETIME>.log.gz");
  EXPECT_EQ(with_revision(replace_all(*name, "<DATETIME>", "2024-01-31_14"), 0),
            "orders.host1-000000.2024-01-31_14.log.gz");

  for (int which = 0; which < 4; ++which) {
    FilenameSettings t;
    t.filename_format = "<TOPIC>.<DATETIME>.log";
    t.gzip = which == 0;
    t.rotate_size = which == 1 ? 10 : 0;
    t.rotate_interval = std::chrono::seconds(which == 2 ? 10 : 0);
    t.distinct_work_dir = which == 3;
    auto missing = topic_filename_template(t, "orders", "host1", 42);
    ASSERT_FALSE(missing) << which;
    EXPECT_EQ(missing.error(), kMissingRevError);
  }
}

TEST(FilenameFormat, GzSuffixNotDoubled) {
  FilenameSettings s;
  s.gzip = true;
  s.filename_format = "<TOPIC><REV>.gz";
  EXPECT_EQ(*topic_filename_template(s, "t", "h", 1), "t<REV>.gz");
}

TEST(FilenameFormat, PidTopicAndRepeatedTokens) {
  FilenameSettings s;
  s.filename_format = "<TOPIC>/<PID>/<TOPIC>.<HOST>.log";
  EXPECT_EQ(*topic_filename_template(s, "t", "box.local", 1234), "t/1234/t.box.log");
}

TEST(FilenameFormat, HostIdentifier) {
  EXPECT_EQ(host_identifier("", "web1.dc.example"), "web1");
  EXPECT_EQ(host_identifier("<SHORT_HOST>-<HOSTNAME>", "web1.dc.example"), "web1-web1.dc.example");
  EXPECT_EQ(host_identifier("fixed", "web1"), "fixed");
  FilenameSettings s;
  s.host_identifier = "id-<SHORT_HOST>";
  EXPECT_EQ(*topic_filename_template(s, "t", "web1.x", 1), "t.id-web1.<DATETIME>.log");
}

TEST(FilenameFormat, RevisionIsSixDigits) {
  EXPECT_EQ(with_revision("a<REV>b<REV>", 7), "a-000007b-000007");
  EXPECT_EQ(with_revision("a<REV>", 1234567), "a-1234567");
  EXPECT_EQ(with_revision("plain", 3), "plain");
}

}  // namespace
}  // namespace nsq::to_file
