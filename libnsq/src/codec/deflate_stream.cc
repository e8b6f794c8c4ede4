#include "nsq/codec/deflate_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "nsq/codec/errc.h"

namespace nsq::codec {
namespace {

constexpr std::size_t kStep = 16 * 1024;  // output grown by this much per zlib call

Bytef* in_ptr(std::string_view s) {
  // zlib's next_in is not const-qualified, but it never writes through it.
  return reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
}

}  // namespace

struct DeflateStreamEncoder::State {
  z_stream z{};
};

DeflateStreamEncoder::DeflateStreamEncoder(int level) : state_(std::make_unique<State>()) {
  level = std::clamp(level, 1, 9);
  // -15: raw deflate with a 32 KiB window; memLevel 8 is zlib's default.
  [[maybe_unused]] int rc = deflateInit2(&state_->z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  // Only a bad argument or no memory make this fail; neither is recoverable here.
  if (rc != Z_OK) std::abort();
}

DeflateStreamEncoder::~DeflateStreamEncoder() { deflateEnd(&state_->z); }

void DeflateStreamEncoder::encode(std::string_view data, std::string& out) {
  z_stream& z = state_->z;
  z.next_in = in_ptr(data);
  z.avail_in = static_cast<uInt>(data.size());
  for (;;) {
    std::size_t have = out.size();
    std::size_t room = std::max<std::size_t>(kStep, deflateBound(&z, z.avail_in) + 16);
    out.resize(have + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    z.avail_out = static_cast<uInt>(room);
    deflate(&z, Z_SYNC_FLUSH);
    out.resize(have + room - z.avail_out);
    // Done when zlib left output space unused: the flush is complete.
    if (z.avail_out != 0 && z.avail_in == 0) break;
  }
}

struct DeflateStreamDecoder::State {
  z_stream z{};
};

DeflateStreamDecoder::DeflateStreamDecoder() : state_(std::make_unique<State>()) {
  if (inflateInit2(&state_->z, -15) != Z_OK) std::abort();
}

DeflateStreamDecoder::~DeflateStreamDecoder() { inflateEnd(&state_->z); }

std::error_code DeflateStreamDecoder::put(std::string_view in, std::string& out,
                                          std::size_t max_out) {
  if (error_) return error_;
  if (in.empty() && !more_) return {};
  if (ended_) {
    error_ = errc::deflate_ended;
    return error_;
  }
  std::string_view src = in;
  if (!pending_.empty()) {
    pending_.append(in);
    src = pending_;
  }
  z_stream& z = state_->z;
  z.next_in = in_ptr(src);
  z.avail_in = static_cast<uInt>(src.size());
  more_ = false;
  std::size_t produced = 0;
  for (;;) {
    if (produced >= max_out) {
      more_ = true;
      break;
    }
    std::size_t have = out.size();
    std::size_t room = std::min(std::max<std::size_t>(kStep, 2 * z.avail_in), max_out - produced);
    out.resize(have + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    z.avail_out = static_cast<uInt>(room);
    int rc = inflate(&z, Z_SYNC_FLUSH);
    out.resize(have + room - z.avail_out);
    produced += room - z.avail_out;
    if (rc == Z_STREAM_END) {
      ended_ = true;
      if (z.avail_in != 0) error_ = errc::deflate_ended;
      break;
    }
    if (rc == Z_BUF_ERROR) {
      // No progress possible: all input consumed (or output full, looped on).
      if (z.avail_in == 0) break;
      continue;
    }
    if (rc != Z_OK) {
      error_ = errc::corrupt_deflate;
      break;
    }
    if (z.avail_in == 0 && z.avail_out != 0) break;
  }
  // Input not decoded yet waits for the next put (built first: it may be a
  // view of pending_ itself).
  std::string rest(reinterpret_cast<const char*>(z.next_in), error_ ? 0 : z.avail_in);
  pending_ = std::move(rest);
  return error_;
}

}  // namespace nsq::codec
