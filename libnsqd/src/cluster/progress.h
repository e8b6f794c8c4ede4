#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

// How far delivery of a replicated topic got (docs/replication.md, "Channel
// progress"), as values: what a leader sends its followers and each replica
// keeps in `<topic>.replica.state`, so a new leader delivers what the old
// one had not finished. Offsets are the records' positions in the replica
// log. No I/O here.
namespace nsq::nsqd::cluster {

// A set of log offsets: every offset below `cursor`, plus the half-open
// ranges above it. Its size grows only with the gaps (messages still out),
// never with what was finished in order.
class OffsetSet {
 public:
  OffsetSet() = default;
  explicit OffsetSet(std::uint64_t cursor) : cursor_(cursor) {}
  // `ranges` must be above `cursor`, disjoint and not touching (as decoded).
  OffsetSet(std::uint64_t cursor, std::map<std::uint64_t, std::uint64_t> ranges)
      : cursor_(cursor), ranges_(std::move(ranges)) {}

  std::uint64_t cursor() const noexcept { return cursor_; }
  const std::map<std::uint64_t, std::uint64_t>& ranges() const noexcept { return ranges_; }

  // Adds [begin, end).
  void add(std::uint64_t begin, std::uint64_t end);
  bool contains(std::uint64_t offset) const;
  // Forgets everything at or above `end`; whether anything was.
  bool clip(std::uint64_t end);

  bool operator==(const OffsetSet&) const = default;

 private:
  std::uint64_t cursor_ = 0;
  std::map<std::uint64_t, std::uint64_t> ranges_;  // begin -> end, disjoint, not touching
};

struct ChannelProgress {
  OffsetSet finished;  // FIN'd, dropped, or handed out before the channel existed
  bool paused = false;

  bool operator==(const ChannelProgress&) const = default;
};

struct TopicProgress {
  OffsetSet handed;  // records the topic gave to its channels (or dropped)
  std::map<std::string, ChannelProgress> channels;

  // The lowest offset a new leader still needs.
  std::uint64_t low_water() const;
  // Forgets what it says about offsets at or above `end`: records of a log
  // this node does not have (a former leader's, truncated here), whose
  // offsets new records take with other boundaries. Whether it said any.
  bool clip(std::uint64_t end);

  bool operator==(const TopicProgress&) const = default;
};

// Binary, big-endian: [set handed][u32 n] then n x [u16 length][name][u8 paused][set],
// a set being [u64 cursor][u32 n] then n x [u64 begin][u64 end].
std::string encode(const TopicProgress& progress);
// Refused: short or trailing bytes, ranges not above the cursor, not in
// order, empty or touching, channels not in name order or named twice.
tl::expected<TopicProgress, std::string> decode_progress(std::string_view bytes);

}  // namespace nsq::nsqd::cluster
