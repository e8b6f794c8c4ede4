#include "core/deferred_file.h"

#include <gtest/gtest.h>

namespace nsq::nsqd::deferred_file {
namespace {

MessageId id_of(const char* s) {
  MessageId id{};
  std::copy(s, s + id.size(), id.begin());
  return id;
}

TEST(DeferredFile, SitsBesideTheMetaFile) {
  EXPECT_EQ(path_for("/data/t:c.diskqueue.meta.dat"), "/data/t:c.diskqueue.deferred.dat");
}

TEST(DeferredFile, RoundTrip) {
  const std::vector<Entry> in = {{id_of("0123456789abcdef"), 1800000000000},
                                 {id_of("fedcba9876543210"), 5}};
  const std::string text = encode(in);
  EXPECT_EQ(text, "0123456789abcdef 1800000000000\nfedcba9876543210 5\n");
  const auto out = decode(text);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, in[0].id);
  EXPECT_EQ(out[0].due_unix_ms, 1800000000000);
  EXPECT_EQ(out[1].due_unix_ms, 5);
}

TEST(DeferredFile, BadLinesAreSkipped) {
  const auto out = decode(
      "short 5\n0123456789abcdefX5\n0123456789abcdef -5\n0123456789abcdef 5x\n"
      "0123456789abcdef 99999999999999999999\n0123456789abcdef 7\nfedcba9876543210 8");
  ASSERT_EQ(out.size(), 1u) << "only one good line; a last line without newline is cut short";
  EXPECT_EQ(out[0].due_unix_ms, 7);
  EXPECT_TRUE(decode("").empty());
}

}  // namespace
}  // namespace nsq::nsqd::deferred_file
