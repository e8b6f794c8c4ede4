#include "gzip_encoder.h"

#include <cassert>

namespace nsq::to_file {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // +16: gzip wrapper instead of zlib's
constexpr int kMemLevel = 8;
constexpr int kUnknownOs = 255;

}  // namespace

GzipEncoder::GzipEncoder(int level) {
  [[maybe_unused]] int rc =
      deflateInit2(&stream_, level, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY);
  assert(rc == Z_OK);
  start_member();
}

GzipEncoder::~GzipEncoder() { deflateEnd(&stream_); }

void GzipEncoder::start_member() {
  header_ = gz_header{};
  header_.os = kUnknownOs;
  [[maybe_unused]] int rc = deflateSetHeader(&stream_, &header_);
  assert(rc == Z_OK);
  member_has_input_ = false;
}

void GzipEncoder::run(int flush, std::string* out) {
  unsigned char chunk[16384];
  while (true) {
    stream_.next_out = chunk;
    stream_.avail_out = sizeof chunk;
    [[maybe_unused]] int rc = deflate(&stream_, flush);
    assert(rc != Z_STREAM_ERROR);
    out->append(reinterpret_cast<const char*>(chunk), sizeof chunk - stream_.avail_out);
    if (flush == Z_FINISH) {
      if (rc == Z_STREAM_END) return;
    } else if (stream_.avail_out != 0 && stream_.avail_in == 0) {
      return;
    }
  }
}

void GzipEncoder::write(std::string_view data, std::string* out) {
  if (data.empty()) return;
  member_has_input_ = true;
  // zlib takes a non-const pointer but does not write through next_in.
  stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream_.avail_in = static_cast<uInt>(data.size());
  run(Z_NO_FLUSH, out);
}

void GzipEncoder::finish_member(std::string* out) {
  stream_.next_in = nullptr;
  stream_.avail_in = 0;
  run(Z_FINISH, out);
  deflateReset(&stream_);
  start_member();
}

}  // namespace nsq::to_file
