#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

namespace nsq::codec {

// The snappy framing format (the "stream" format, not raw blocks), as NSQ
// negotiates it with IDENTIFY {"snappy": true}. Sans-I/O: bytes in, bytes out.
//
// Encoder: the stream identifier chunk first, then one chunk per (at most)
// 64 KiB of input: compressed, or stored when snappy does not save at least
// an eighth (what Go's writer does, so small frames go out as stored chunks).
class SnappyStreamEncoder {
 public:
  // Appends the framed form of `data` to `out` (an empty `data` appends only
  // the stream identifier, if not sent yet).
  void encode(std::string_view data, std::string& out);

 private:
  bool started_ = false;
  std::string scratch_;
};

// Decoder: accepts input in pieces of any size and appends the plain bytes
// of every complete chunk to `out`; an incomplete chunk waits for more input.
// Padding and reserved skippable chunks are skipped. The first error is
// sticky (errc in nsq/codec/errc.h).
//
// A put() stops before the next chunk once it has appended `max_out` bytes or
// more (a chunk holds at most 64 KiB), keeping the rest of the input: a
// caller that bounds its memory calls put({}, out, max_out) while more().
class SnappyStreamDecoder {
 public:
  std::error_code put(std::string_view in, std::string& out,
                      std::size_t max_out = static_cast<std::size_t>(-1));
  // Whether the last put() stopped at max_out with input left.
  bool more() const noexcept { return more_; }
  std::error_code error() const noexcept { return error_; }

 private:
  std::error_code decode_chunk(unsigned type, std::string_view body, std::string& out);

  std::string pending_;  // input carried to the next put(): an incomplete chunk, or more
  bool more_ = false;
  bool seen_identifier_ = false;
  std::error_code error_;
  std::string scratch_;
};

}  // namespace nsq::codec
