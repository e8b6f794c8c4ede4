#include "nsq/codec/snappy_stream.h"

#include <snappy.h>

#include <cstdint>

#include "nsq/codec/crc32c.h"
#include "nsq/codec/errc.h"

namespace nsq::codec {
namespace {

constexpr unsigned kCompressed = 0x00;
constexpr unsigned kUncompressed = 0x01;
constexpr unsigned kPadding = 0xfe;
constexpr unsigned kIdentifier = 0xff;
constexpr std::size_t kMaxBlock = 65536;  // uncompressed bytes per chunk
constexpr std::string_view kMagic = "sNaPpY";
constexpr std::string_view kIdentifierChunk("\xff\x06\x00\x00sNaPpY", 10);

void put_u24(std::string& out, std::size_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
  out.push_back(static_cast<char>((v >> 16) & 0xff));
}

void put_u32le(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t get_u32le(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(u[0]) | static_cast<std::uint32_t>(u[1]) << 8 |
         static_cast<std::uint32_t>(u[2]) << 16 | static_cast<std::uint32_t>(u[3]) << 24;
}

}  // namespace

void SnappyStreamEncoder::encode(std::string_view data, std::string& out) {
  if (!started_) {
    out.append(kIdentifierChunk);
    started_ = true;
  }
  while (!data.empty()) {
    std::string_view block = data.substr(0, kMaxBlock);
    data.remove_prefix(block.size());
    std::uint32_t crc = mask_crc(crc32c(block));
    scratch_.resize(snappy::MaxCompressedLength(block.size()));
    std::size_t n = 0;
    snappy::RawCompress(block.data(), block.size(), scratch_.data(), &n);
    if (n < block.size() - block.size() / 8) {
      out.push_back(static_cast<char>(kCompressed));
      put_u24(out, n + 4);
      put_u32le(out, crc);
      out.append(scratch_.data(), n);
    } else {
      out.push_back(static_cast<char>(kUncompressed));
      put_u24(out, block.size() + 4);
      put_u32le(out, crc);
      out.append(block);
    }
  }
}

std::error_code SnappyStreamDecoder::put(std::string_view in, std::string& out,
                                         std::size_t max_out) {
  if (error_) return error_;
  more_ = false;
  const std::size_t start = out.size();
  // Chunks wholly inside `in` are decoded in place; only what is left (a
  // chunk cut by the end of the input, or the chunks after max_out was
  // reached) is copied into pending_.
  std::string_view data = in;
  if (!pending_.empty()) {
    pending_.append(in);
    data = pending_;
  }
  std::size_t pos = 0;
  while (data.size() - pos >= 4) {
    if (out.size() - start >= max_out) {
      more_ = true;
      break;
    }
    const auto* h = reinterpret_cast<const unsigned char*>(data.data() + pos);
    unsigned type = h[0];
    std::size_t len =
        h[1] | static_cast<std::size_t>(h[2]) << 8 | static_cast<std::size_t>(h[3]) << 16;
    // Bound what we wait for before having it: no legal data chunk is longer.
    if ((type == kCompressed || type == kUncompressed) &&
        len > 4 + snappy::MaxCompressedLength(kMaxBlock)) {
      error_ = errc::chunk_too_large;
      return error_;
    }
    if (type >= 0x02 && type <= 0x7f) {
      error_ = errc::reserved_chunk;
      return error_;
    }
    if (data.size() - pos - 4 < len) break;
    std::string_view body = data.substr(pos + 4, len);
    pos += 4 + len;
    if (std::error_code ec = decode_chunk(type, body, out)) {
      error_ = ec;
      return error_;
    }
  }
  std::string rest(data.substr(pos));
  pending_ = std::move(rest);
  return {};
}

std::error_code SnappyStreamDecoder::decode_chunk(unsigned type, std::string_view body,
                                                  std::string& out) {
  if (type == kIdentifier) {
    if (body != kMagic) return errc::bad_stream_identifier;
    seen_identifier_ = true;
    return {};
  }
  if (!seen_identifier_) return errc::missing_stream_identifier;
  if (type == kPadding || type >= 0x80) return {};  // skippable
  if (body.size() < 4) return errc::corrupt_chunk;
  std::uint32_t want = get_u32le(body.data());
  body.remove_prefix(4);
  std::string_view plain;
  if (type == kCompressed) {
    std::size_t n = 0;
    if (!snappy::GetUncompressedLength(body.data(), body.size(), &n)) return errc::corrupt_chunk;
    if (n > kMaxBlock) return errc::chunk_too_large;
    scratch_.resize(n);
    if (!snappy::RawUncompress(body.data(), body.size(), scratch_.data())) {
      return errc::corrupt_chunk;
    }
    plain = scratch_;
  } else {
    if (body.size() > kMaxBlock) return errc::chunk_too_large;
    plain = body;
  }
  if (mask_crc(crc32c(plain)) != want) return errc::bad_checksum;
  out.append(plain);
  return {};
}

}  // namespace nsq::codec
