#include "cluster/progress.h"

#include <algorithm>
#include <iterator>

#include "nsq/endian.h"

namespace nsq::nsqd::cluster {
namespace {

void put32(std::string& out, std::uint32_t v) {
  char b[4];
  put_u32be(b, v);
  out.append(b, 4);
}
void put64(std::string& out, std::uint64_t v) {
  char b[8];
  put_u64be(b, v);
  out.append(b, 8);
}

void put_set(std::string& out, const OffsetSet& set) {
  put64(out, set.cursor());
  put32(out, static_cast<std::uint32_t>(set.ranges().size()));
  for (const auto& [begin, end] : set.ranges()) {
    put64(out, begin);
    put64(out, end);
  }
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  bool ok() const { return ok_; }
  bool done() const { return rest_.empty(); }
  void fail() { ok_ = false; }
  std::size_t left() const { return rest_.size(); }

  std::string_view take(std::size_t n) {
    if (!ok_ || rest_.size() < n) {
      ok_ = false;
      return {};
    }
    std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::uint8_t u8() {
    auto b = take(1);
    return ok_ ? static_cast<std::uint8_t>(b[0]) : 0;
  }
  std::uint16_t u16() {
    auto b = take(2);
    return ok_ ? get_u16be(b.data()) : 0;
  }
  std::uint32_t u32() {
    auto b = take(4);
    return ok_ ? get_u32be(b.data()) : 0;
  }
  std::uint64_t u64() {
    auto b = take(8);
    return ok_ ? get_u64be(b.data()) : 0;
  }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

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
    out.push_back(static_cast<char>(name.size() >> 8));
    out.push_back(static_cast<char>(name.size() & 0xff));
    out += name;
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
    std::string name(r.take(r.u16()));
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
