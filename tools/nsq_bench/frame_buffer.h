#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "nsq/frame.h"

namespace nsq::bench {

// A frame as a view into FrameBuffer's storage: no copy, no allocation.
struct FrameView {
  FrameType type;         // may hold a value outside the enumerators
  std::string_view data;  // valid until the next prepare()
};

// Read buffer plus in-place frame splitter for the hot loops. nsq::FrameDecoder
// copies every frame into a std::string; at a million messages a second that
// allocation is the reader's main cost, so here the socket reads straight
// into one large buffer and frames are handed out as views into it.
//
// Use: read into prepare(), commit() the count, then next() until nullopt.
// A frame size < 4 or above the limit is a sticky error, as in FrameDecoder.
//
// @par Thread Safety: none; one per connection.
class FrameBuffer {
 public:
  static constexpr std::size_t kDefaultCapacity = 512 * 1024;
  // Compact before a read when less than this is free at the end: a small
  // read would cost a syscall for little data.
  static constexpr std::size_t kMinFree = 64 * 1024;

  explicit FrameBuffer(std::size_t capacity = kDefaultCapacity,
                       std::size_t max_frame_size = FrameDecoder::kDefaultMaxFrameSize);

  // Free space to read into (at least kMinFree, and enough for the whole of
  // a partially received frame). Moves unconsumed bytes, so it invalidates
  // the views returned by next().
  std::span<char> prepare();
  // n bytes were written at the start of the last prepare() span.
  void commit(std::size_t n);
  // prepare + copy + commit: for tests and small writes.
  void put(std::string_view bytes);

  // The next complete frame, or nullopt when more bytes are needed or the
  // stream is broken (then error() is set).
  std::optional<FrameView> next();

  // Removes and returns the received bytes not yet handed out as frames:
  // after an IDENTIFY upgrade they belong to the new (compressed) layer.
  std::string take_unparsed();

  std::error_code error() const noexcept { return error_; }
  std::size_t buffered() const noexcept { return end_ - begin_; }
  std::size_t capacity() const noexcept { return buf_.size(); }

 private:
  std::vector<char> buf_;
  std::size_t max_frame_size_;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last received byte
  std::size_t need_ = 0;   // total size of the partial frame at begin_, once its size is known
  std::error_code error_;
};

}  // namespace nsq::bench
