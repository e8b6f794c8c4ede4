#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "nsq/result.h"

namespace nsq {

// Server -> client frame: [int32 size][int32 type][data], size = 4 + data size.
enum class FrameType : int32_t { response = 0, error = 1, message = 2 };

inline constexpr std::size_t kFrameHeaderSize = 8;

void append_frame(std::string& out, FrameType type, std::string_view data);

// The whole length (4 + size) of the frame whose 4-byte size field starts at
// `p`, or what breaks the stream: errc::bad_frame for a size below 4,
// errc::frame_too_big above `max_frame_size`.
Result<std::size_t> checked_frame_length(const char* p, std::size_t max_frame_size);

struct Frame {
  FrameType type;  // may hold a value outside the enumerators: callers decide
  std::string data;

  friend bool operator==(const Frame&, const Frame&) = default;
};

// Sans-I/O, client-side frame splitter: feed bytes as they arrive with put(),
// take complete frames with next(). A frame whose size is < 4 or above the
// limit puts the decoder in a sticky error state (a stream cannot resync).
//
// @par Thread Safety: none; one decoder per connection.
class FrameDecoder {
 public:
  // Room for a max-size message (1 MiB default) plus its headers, with margin.
  static constexpr std::size_t kDefaultMaxFrameSize = 16 * 1024 * 1024;

  explicit FrameDecoder(std::size_t max_frame_size = kDefaultMaxFrameSize)
      : max_frame_size_(max_frame_size) {}

  void put(std::string_view bytes);

  // The next complete frame, or nullopt when more bytes are needed or the
  // stream is broken (then error() is set).
  std::optional<Frame> next();

  std::error_code error() const noexcept { return error_; }
  // Bytes received but not yet returned as frames.
  std::size_t buffered() const noexcept { return buf_.size() - pos_; }
  // Removes and returns those bytes: after a frame that switches the stream
  // to TLS or compression, what follows it was read too early and must go
  // through the new layer first.
  std::string take_buffered();

 private:
  std::size_t max_frame_size_;
  std::string buf_;
  std::size_t pos_ = 0;  // start of the first unconsumed byte in buf_
  std::error_code error_;
};

}  // namespace nsq
