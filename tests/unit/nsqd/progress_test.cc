// The delivery progress of a replicated topic (cluster/progress.h) and the
// ledger that keeps it (cluster/ledger.h).
#include <gtest/gtest.h>

#include "cluster/ledger.h"
#include "cluster/progress.h"

namespace nsq::nsqd::cluster {
namespace {

using Ranges = std::map<std::uint64_t, std::uint64_t>;

TEST(OffsetSet, FinishedInOrderOnlyMovesTheCursor) {
  OffsetSet s;
  s.add(0, 10);
  s.add(10, 25);
  EXPECT_EQ(s.cursor(), 25u);
  EXPECT_TRUE(s.ranges().empty());
  EXPECT_TRUE(s.contains(24));
  EXPECT_FALSE(s.contains(25));
}

TEST(OffsetSet, GapsKeepRangesThatMergeWhenFilled) {
  OffsetSet s(100);
  s.add(120, 130);
  s.add(140, 150);
  EXPECT_EQ(s.ranges(), (Ranges{{120, 130}, {140, 150}}));
  EXPECT_FALSE(s.contains(110));
  EXPECT_TRUE(s.contains(120));
  EXPECT_FALSE(s.contains(130)) << "ranges are half-open";
  s.add(130, 140);  // touches both neighbours
  EXPECT_EQ(s.ranges(), (Ranges{{120, 150}}));
  s.add(100, 120);  // fills the gap at the cursor
  EXPECT_EQ(s.cursor(), 150u);
  EXPECT_TRUE(s.ranges().empty());
}

TEST(OffsetSet, OverlapsAndWhatIsBelowTheCursorChangeNothingTwice) {
  OffsetSet s(50);
  s.add(10, 40);  // below the cursor
  EXPECT_EQ(s, OffsetSet(50));
  s.add(60, 70);
  s.add(65, 80);
  s.add(55, 61);
  EXPECT_EQ(s.ranges(), (Ranges{{55, 80}}));
  s.add(40, 56);  // reaches the cursor and overlaps the range
  EXPECT_EQ(s.cursor(), 80u);
  EXPECT_TRUE(s.ranges().empty());
  s.add(90, 90);  // empty
  EXPECT_TRUE(s.ranges().empty());
}

TEST(OffsetSet, ClipForgetsWhatIsAtOrAboveTheEnd) {
  OffsetSet s(100, {{120, 130}, {140, 150}, {160, 170}});
  EXPECT_TRUE(s.clip(145));
  EXPECT_EQ(s, OffsetSet(100, {{120, 130}, {140, 145}}));
  EXPECT_FALSE(s.clip(145)) << "nothing left above";
  EXPECT_TRUE(s.clip(50));
  EXPECT_EQ(s, OffsetSet(50)) << "a cursor past the end comes back to it";
  OffsetSet t(10, {{20, 30}});
  EXPECT_TRUE(t.clip(20));
  EXPECT_EQ(t, OffsetSet(10));
}

TopicProgress sample() {
  TopicProgress p;
  p.handed = OffsetSet(300, {{400, 500}});
  p.channels["archive"] = ChannelProgress{OffsetSet(100, {{150, 200}, {250, 260}}), false};
  p.channels["paused#x"] = ChannelProgress{OffsetSet(300), true};
  return p;
}

TEST(TopicProgress, RoundTripsAndNamesItsLowWater) {
  const TopicProgress p = sample();
  EXPECT_EQ(decode_progress(encode(p)), p);
  EXPECT_EQ(p.low_water(), 100u);
  EXPECT_EQ(decode_progress(encode(TopicProgress{})), TopicProgress{});
}

TEST(TopicProgress, RefusesTruncatedTrailingAndDisorderedBytes) {
  const std::string bytes = encode(sample());
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(decode_progress(bytes.substr(0, cut))) << cut;
  }
  EXPECT_FALSE(decode_progress(bytes + "x"));

  TopicProgress touching;
  touching.handed = OffsetSet(0, {{10, 20}, {20, 30}});  // not as add() leaves it
  EXPECT_FALSE(decode_progress(encode(touching)));
  TopicProgress at_cursor;
  at_cursor.handed = OffsetSet(10, {{10, 20}});
  EXPECT_FALSE(decode_progress(encode(at_cursor)));
  TopicProgress empty_range;
  empty_range.handed = OffsetSet(0, {{5, 5}});
  EXPECT_FALSE(decode_progress(encode(empty_range)));

  // Channels in name order only: one encoding per progress.
  std::string swapped = encode(sample());
  const auto a = swapped.find("archive"), b = swapped.find("paused#x");
  ASSERT_LT(a, b);
  std::string reordered =
      swapped.substr(0, a - 2) + swapped.substr(b - 2) + swapped.substr(a - 2, b - a);
  ASSERT_EQ(reordered.size(), swapped.size());
  EXPECT_FALSE(decode_progress(reordered));

  std::string huge = encode(TopicProgress{});
  huge[8] = '\x7f';  // a range count no body could hold
  EXPECT_FALSE(decode_progress(huge));
}

TEST(MessageIds, AreTheIdBasePlusTheRecordOffset) {
  const std::uint64_t base = 0x0123456789a00000;
  const MessageId id = id_at(base, 0x1f);
  EXPECT_EQ(to_string_view(id), "0123456789a0001f");
  EXPECT_EQ(offset_of(base, id), 0x1fu);
  EXPECT_EQ(offset_of(base + 0x20, id), std::nullopt) << "below the base";
  MessageId upper = id;
  upper[15] = 'F';
  EXPECT_EQ(offset_of(base, upper), std::nullopt) << "Go writes lowercase hex only";
  for (char bad : {'g', '/', ':', '`', '\0', '\xff'}) {
    MessageId other = id;
    other[3] = bad;
    EXPECT_EQ(offset_of(base, other), std::nullopt) << static_cast<int>(bad);
  }
}

MessageRef message_at(std::uint64_t base, std::uint64_t offset, std::string_view body) {
  return MessageRef::create(id_at(base, offset), 1, body);
}

TEST(Ledger, RecordsWhatTheTopicHandsAndWhatChannelsFinish) {
  const std::uint64_t base = 1 << 20;
  Ledger ledger(base, {});
  const std::uint64_t size = record_size(3);
  ledger.channel_added("a", false);
  std::vector<MessageRef> batch = {message_at(base, 0, "one"), message_at(base, size, "two"),
                                   message_at(base, 2 * size, "six")};
  const std::uint64_t v0 = ledger.version();
  ledger.handed(batch);
  EXPECT_GT(ledger.version(), v0);
  EXPECT_EQ(ledger.progress().handed, OffsetSet(3 * size));

  // A channel created now owes nothing handed before it existed.
  ledger.channel_added("b", true);
  EXPECT_EQ(ledger.progress().channels.at("b").finished, OffsetSet(3 * size));
  EXPECT_TRUE(ledger.progress().channels.at("b").paused);

  ledger.finished("a", *batch[1]);
  EXPECT_EQ(ledger.progress().channels.at("a").finished, OffsetSet(0, {{size, 2 * size}}));
  ledger.finished("a", *batch[0]);
  EXPECT_EQ(ledger.progress().channels.at("a").finished, OffsetSet(2 * size));
  ledger.finished("nobody", *batch[2]);                            // unknown channel: ignored
  ledger.finished("a", *MessageRef::create(MessageId{}, 1, "x"));  // not an id of this log

  ledger.channel_emptied("a");
  EXPECT_EQ(ledger.progress().channels.at("a").finished, OffsetSet(3 * size));
  ledger.channel_paused("b", false);
  EXPECT_FALSE(ledger.progress().channels.at("b").paused);
  EXPECT_TRUE(ledger.has_channel("b"));
  ledger.channel_removed("b");
  EXPECT_FALSE(ledger.has_channel("b"));
}

TEST(Ledger, HandedBatchesWithGapsKeepTheGaps) {
  const std::uint64_t base = 1 << 20;
  Ledger ledger(base, {});
  const std::uint64_t size = record_size(3);
  // Records 1, 2 and 4 of 0..4, then a message of another log (ignored).
  std::vector<MessageRef> batch = {message_at(base, size, "one"), message_at(base, 2 * size, "two"),
                                   message_at(base, 4 * size, "six"),
                                   MessageRef::create(MessageId{}, 1, "x")};
  ledger.handed(batch);
  EXPECT_EQ(ledger.progress().handed, OffsetSet(0, {{size, 3 * size}, {4 * size, 5 * size}}));
  ledger.handed(std::span(batch).first(0));
  ledger.handed({&batch[3], 1});
  EXPECT_EQ(ledger.progress().handed, OffsetSet(0, {{size, 3 * size}, {4 * size, 5 * size}}));
  std::vector<MessageRef> rest = {message_at(base, 0, "abc"), message_at(base, 3 * size, "def")};
  ledger.handed(rest);
  EXPECT_EQ(ledger.progress().handed, OffsetSet(5 * size));
}

TEST(Ledger, SkippedAndDroppedRecordsAreOwedByNobody) {
  Ledger ledger(0, {});
  ledger.channel_added("a", false);
  ledger.skip(0, 100);  // a publish that failed after it was appended
  EXPECT_EQ(ledger.progress().handed, OffsetSet(100));
  EXPECT_EQ(ledger.progress().channels.at("a").finished, OffsetSet(100));
  const MessageRef m = message_at(0, 100, "body");
  ledger.dropped({&m, 1});  // /topic/empty before any channel had it
  EXPECT_EQ(ledger.progress().handed, OffsetSet(100 + record_size(4)));
  EXPECT_EQ(ledger.progress().channels.at("a").finished, OffsetSet(100 + record_size(4)));
  ledger.replace(sample());
  EXPECT_EQ(ledger.progress(), sample());
}

}  // namespace
}  // namespace nsq::nsqd::cluster
