#include "frame_buffer.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "nsq/endian.h"

namespace nsq::bench {

FrameBuffer::FrameBuffer(std::size_t capacity, std::size_t max_frame_size)
    : buf_(std::max(capacity, 2 * kMinFree)), max_frame_size_(max_frame_size) {}

std::span<char> FrameBuffer::prepare() {
  if (begin_ == end_) begin_ = end_ = 0;
  const std::size_t want = std::max(need_, buffered() + kMinFree);
  if (buf_.size() - begin_ < want || buf_.size() - end_ < kMinFree) {
    // Slide the partial frame to the front; grow only when one frame (plus
    // read room) does not fit at all.
    std::memmove(buf_.data(), buf_.data() + begin_, buffered());
    end_ -= begin_;
    begin_ = 0;
    if (buf_.size() < want) buf_.resize(want);
  }
  return {buf_.data() + end_, buf_.size() - end_};
}

void FrameBuffer::commit(std::size_t n) {
  assert(end_ + n <= buf_.size());
  end_ += n;
}

void FrameBuffer::put(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::span<char> room = prepare();
    const std::size_t n = std::min(room.size(), bytes.size());
    std::memcpy(room.data(), bytes.data(), n);
    commit(n);
    bytes.remove_prefix(n);
  }
}

std::optional<FrameView> FrameBuffer::next() {
  if (error_ || buffered() < 4) return std::nullopt;
  const char* p = buf_.data() + begin_;
  const auto total = checked_frame_length(p, max_frame_size_);
  if (!total) {
    error_ = total.error();
    return std::nullopt;
  }
  if (buffered() < *total) {
    need_ = *total;
    return std::nullopt;
  }
  need_ = 0;
  begin_ += *total;
  return FrameView{static_cast<FrameType>(get_i32be(p + 4)), std::string_view(p + 8, *total - 8)};
}

std::string FrameBuffer::take_unparsed() {
  std::string rest(buf_.data() + begin_, end_ - begin_);
  begin_ = end_ = 0;
  need_ = 0;
  return rest;
}

}  // namespace nsq::bench
