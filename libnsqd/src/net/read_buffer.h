#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace nsq::nsqd {

// The read side of one connection: bytes read from the socket and not yet
// parsed, in one contiguous block so a command and its body can be viewed in
// place.
//
// Sized to what the peer sends rather than to the largest read we allow: an
// idle connection (most of them, in a big deployment) holds kMinRead, a
// publisher streaming MPUBs grows to kMaxRead within a few reads, and a big
// body grows the block to fit it once. The size of the next read doubles when
// a read filled all the space offered (the peer had more) and drops to twice
// the last read after a few small reads in a row; an empty block much larger than that
// is given back before the next read, so a burst or a big frame does not pin
// memory for the life of the connection.
//
// Not thread-safe: used by one connection's read loop. Views returned by
// data() stay valid until the next prepare().
class ReadBuffer {
 public:
  static constexpr std::size_t kMinRead = 4 * 1024;
  static constexpr std::size_t kMaxRead = 64 * 1024;
  static constexpr int kSmallReadsToShrink = 4;

  std::string_view data() const noexcept { return {buf_.get() + start_, end_ - start_}; }
  std::size_t size() const noexcept { return end_ - start_; }
  // Bytes held (for tests and memory figures).
  std::size_t capacity() const noexcept { return cap_; }
  // How many bytes the next read asks for, at least.
  std::size_t read_size() const noexcept { return read_size_; }

  void consume(std::size_t n) noexcept {
    assert(n <= size());
    start_ += n;
    if (start_ == end_) start_ = end_ = 0;
  }

  // Space for one read such that `need` unread bytes fit in all: at least
  // max(need - size(), read_size()) bytes. May move the unread bytes.
  std::span<char> prepare(std::size_t need) {
    const std::size_t unread = size();
    const std::size_t want = std::max(need > unread ? need - unread : 0, read_size_);
    if (unread == 0 && cap_ >= 4 * want && cap_ > kMinRead) {
      reallocate(want);  // idle again after a burst or a big frame
    } else if (cap_ - end_ < want) {
      if (cap_ - unread >= want && start_ > 0) {
        std::memmove(buf_.get(), buf_.get() + start_, unread);
        end_ = unread;
        start_ = 0;
      } else {
        reallocate(unread + want);
      }
    }
    return {buf_.get() + end_, cap_ - end_};
  }

  // After a read of `got` bytes into the span prepare() returned (`offered`
  // bytes long).
  void commit(std::size_t got, std::size_t offered) noexcept {
    assert(end_ + got <= cap_);
    end_ += got;
    if (got >= offered) {
      read_size_ = std::min(read_size_ * 2, kMaxRead);
      small_reads_ = 0;
    } else if (4 * got <= read_size_) {
      // Several in a row: one small read is often the first piece of a
      // frame still on its way, not a quiet peer.
      if (++small_reads_ >= kSmallReadsToShrink) {
        read_size_ = std::clamp(std::bit_ceil(2 * got), kMinRead, kMaxRead);
        small_reads_ = 0;
      }
    } else {
      small_reads_ = 0;
    }
  }

 private:
  void reallocate(std::size_t capacity) {
    const std::size_t unread = size();
    auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
    if (unread > 0) std::memcpy(fresh.get(), buf_.get() + start_, unread);
    buf_ = std::move(fresh);
    cap_ = capacity;
    start_ = 0;
    end_ = unread;
  }

  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  std::size_t start_ = 0, end_ = 0;  // [start_, end_) unread
  std::size_t read_size_ = kMinRead;
  int small_reads_ = 0;  // reads in a row that used under a quarter of read_size_
};

}  // namespace nsq::nsqd
