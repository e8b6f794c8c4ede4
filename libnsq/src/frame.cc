#include "nsq/frame.h"

#include "nsq/endian.h"
#include "nsq/error.h"

namespace nsq {

void append_frame(std::string& out, FrameType type, std::string_view data) {
  char h[kFrameHeaderSize];
  put_u32be(h, static_cast<uint32_t>(4 + data.size()));
  put_u32be(h + 4, static_cast<uint32_t>(type));
  out.reserve(out.size() + sizeof h + data.size());
  out.append(h, sizeof h);
  out.append(data);
}

void FrameDecoder::put(std::string_view bytes) {
  if (error_) return;
  // Drop consumed bytes only when they dominate, so compaction stays amortised O(1).
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
}

std::string FrameDecoder::take_buffered() {
  std::string rest = buf_.substr(pos_);
  buf_.clear();
  pos_ = 0;
  return rest;
}

Result<std::size_t> checked_frame_length(const char* p, std::size_t max_frame_size) {
  const uint32_t size = get_u32be(p);
  if (size < 4) return tl::unexpected(make_error_code(errc::bad_frame));
  if (size > max_frame_size) return tl::unexpected(make_error_code(errc::frame_too_big));
  return 4 + std::size_t{size};
}

std::optional<Frame> FrameDecoder::next() {
  if (error_ || buffered() < 4) return std::nullopt;
  const auto length = checked_frame_length(buf_.data() + pos_, max_frame_size_);
  if (!length) {
    error_ = length.error();
    return std::nullopt;
  }
  if (buffered() < *length) return std::nullopt;
  const char* p = buf_.data() + pos_ + 4;
  Frame f{static_cast<FrameType>(get_i32be(p)), std::string(p + 4, *length - 8)};
  pos_ += *length;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return f;
}

}  // namespace nsq
