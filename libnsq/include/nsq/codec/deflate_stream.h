#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <system_error>

namespace nsq::codec {

// Raw DEFLATE (RFC 1951, no zlib or gzip wrapper) as NSQ negotiates it with
// IDENTIFY {"deflate": true}. Sans-I/O wrappers around zlib streams.
//
// Encoder: every encode() ends with a sync flush (the empty stored block
// 00 00 ff ff), so the peer can decode everything sent so far.
class DeflateStreamEncoder {
 public:
  // level 1..9 (others are clamped).
  explicit DeflateStreamEncoder(int level);
  ~DeflateStreamEncoder();
  DeflateStreamEncoder(const DeflateStreamEncoder&) = delete;
  DeflateStreamEncoder& operator=(const DeflateStreamEncoder&) = delete;

  void encode(std::string_view data, std::string& out);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Decoder: input in pieces of any size, plain bytes appended to `out` as soon
// as zlib can produce them. The first error is sticky.
//
// A put() may stop once it has appended `max_out` bytes or more (a few KiB
// past it at most), keeping the input it has not decoded: deflate inflates
// up to ~1000x, so a caller that bounds its memory decodes in steps, calling
// put({}, out, max_out) while more() says there may be output left.
class DeflateStreamDecoder {
 public:
  DeflateStreamDecoder();
  ~DeflateStreamDecoder();
  DeflateStreamDecoder(const DeflateStreamDecoder&) = delete;
  DeflateStreamDecoder& operator=(const DeflateStreamDecoder&) = delete;

  std::error_code put(std::string_view in, std::string& out,
                      std::size_t max_out = static_cast<std::size_t>(-1));
  // Whether the last put() stopped at max_out with work left.
  bool more() const noexcept { return more_; }
  std::error_code error() const noexcept { return error_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string pending_;  // input a put() stopped before
  bool more_ = false;
  bool ended_ = false;
  std::error_code error_;
};

}  // namespace nsq::codec
