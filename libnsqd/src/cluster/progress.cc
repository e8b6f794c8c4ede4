#include "cluster/progress.h"

#include <algorithm>
#include <iterator>

#include "cluster/binary_io.h"

namespace nsq::nsqd::cluster {
namespace {

using binary::put32;
using binary::put64;
using binary::Reader;

void put_set(std::string& out, const OffsetSet& set) {
  put64(out, set.cursor());
  put32(out, static_cast<std::uint32_t>(set.ranges().size()));
  for (const auto& [begin, end] : set.ranges()) {
    put64(out, begin);
    put64(out, end);
  }
}

}  // namespace

void OffsetSet::add(std::uint64_t begin, std::uint64_t end) {
  begin = std::max(begin, cursor_);
  if (begin >= end) return;
  // Merge with every range that overlaps or touches [begin, end).
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
  while (it != ranges_.end() && it->first <= end) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  if (begin == cursor_) {
    cursor_ = end;
  } else {
    ranges_.emplace(begin, end);
  }
}

bool OffsetSet::contains(std::uint64_t offset) const {
  if (offset < cursor_) return true;
  auto it = ranges_.upper_bound(offset);
  return it != ranges_.begin() && std::prev(it)->second > offset;
}

bool OffsetSet::clip(std::uint64_t end) {
  bool clipped = cursor_ > end;
  cursor_ = std::min(cursor_, end);
  for (auto it = ranges_.lower_bound(end); it != ranges_.end();) {
    it = ranges_.erase(it);
    clipped = true;
  }
  if (!ranges_.empty() && ranges_.rbegin()->second > end) {
    ranges_.rbegin()->second = end;
    clipped = true;
  }
  return clipped;
}

bool TopicProgress::clip(std::uint64_t end) {
  bool clipped = handed.clip(end);
  for (auto& [name, c] : channels) clipped = c.finished.clip(end) || clipped;
  return clipped;
}

std::uint64_t TopicProgress::low_water() const {
  std::uint64_t low = handed.cursor();
  for (const auto& [name, c] : channels) low = std::min(low, c.finished.cursor());
  return low;
}

std::string encode(const TopicProgress& progress) {
  std::string out;
  put_set(out, progress.handed);
  put32(out, static_cast<std::uint32_t>(progress.channels.size()));
  for (const auto& [name, c] : progress.channels) {
    binary::put_str(out, name);
    out.push_back(c.paused ? 1 : 0);
    put_set(out, c.finished);
  }
  return out;
}

tl::expected<TopicProgress, std::string> decode_progress(std::string_view bytes) {
  Reader r(bytes);
  auto read_set = [&r](OffsetSet& set) {
    const std::uint64_t cursor = r.u64();
    const std::uint32_t n = r.u32();
    if (n > r.left() / 16) r.fail();  // no promise of more than the bytes hold
    std::map<std::uint64_t, std::uint64_t> ranges;
    std::uint64_t above = cursor;
    for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
      const std::uint64_t begin = r.u64();
      const std::uint64_t end = r.u64();
      // Strictly above the previous range's end: ranges never touch.
      if (begin <= above || end <= begin) r.fail();
      ranges.emplace_hint(ranges.end(), begin, end);
      above = end;
    }
    set = OffsetSet(cursor, std::move(ranges));
  };
  TopicProgress p;
  read_set(p.handed);
  const std::uint32_t n = r.u32();
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    std::string name = r.str();
    const std::uint8_t paused = r.u8();
    // In name order, each once, as encode() writes them.
    if (paused > 1 || (!p.channels.empty() && name <= p.channels.rbegin()->first)) r.fail();
    auto& c = p.channels.emplace_hint(p.channels.end(), std::move(name), ChannelProgress{})->second;
    c.paused = paused == 1;
    read_set(c.finished);
  }
  if (!r.ok() || !r.done()) return tl::unexpected(std::string("malformed delivery progress"));
  return p;
}

}  // namespace nsq::nsqd::cluster
