#include "nsq/codec/snappy_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "nsq/codec/crc32c.h"
#include "nsq/codec/errc.h"
#include "testutil/decode_in_steps.h"

namespace nsq::codec {
namespace {

using namespace std::string_literals;

const std::string kIdentifier = "\xff\x06\x00\x00sNaPpY"s;
const std::string kOkFrame = "\x00\x00\x00\x06\x00\x00\x00\x00OK"s;

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string encode(std::string_view data) {
  SnappyStreamEncoder enc;
  std::string out;
  enc.encode(data, out);
  return out;
}

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c("123456789"), 0xe3069283u);
  // 32 zero bytes (RFC 3720 B.4).
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8a9136aau);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62a8ab43u);
}

// The bit-at-a-time definition, against which the fast paths (tables, or the
// CPU's CRC32 instruction) must agree at every length and alignment.
std::uint32_t crc32c_bitwise(std::string_view data) {
  std::uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
  }
  return crc ^ 0xffffffffu;
}

TEST(SnappyStream, Crc32cAgreesWithTheDefinitionAtEveryLengthAndAlignment) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) bytes.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  for (std::size_t at = 0; at < 8; ++at) {
    for (std::size_t n = 0; at + n <= bytes.size(); n += (n < 40 ? 1 : 37)) {
      std::string_view piece(bytes.data() + at, n);
      ASSERT_EQ(crc32c(piece), crc32c_bitwise(piece)) << "at " << at << " length " << n;
    }
  }
}

TEST(SnappyStream, OkFrameIsTheBytesNsqdSends) {
  // tcp-protocol.md: stream identifier, then one stored chunk with the frame.
  std::string out = encode(kOkFrame);
  ASSERT_EQ(out.size(), kIdentifier.size() + 4 + 4 + kOkFrame.size());
  EXPECT_EQ(out.substr(0, 10), kIdentifier);
  EXPECT_EQ(out.substr(10, 4), "\x01\x0e\x00\x00"s);
  std::uint32_t crc = mask_crc(crc32c(kOkFrame));
  std::string crc_le;
  for (int i = 0; i < 4; ++i) crc_le.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  EXPECT_EQ(out.substr(14, 4), crc_le);
  EXPECT_EQ(out.substr(18), kOkFrame);
}

TEST(SnappyStream, IdentifierOnlyOnce) {
  SnappyStreamEncoder enc;
  std::string out;
  enc.encode("a", out);
  std::size_t first = out.size();
  enc.encode("b", out);
  EXPECT_EQ(out.find(kIdentifier, 1), std::string::npos);
  EXPECT_EQ(out.size() - first, 4u + 4u + 1u);
}

TEST(SnappyStream, RoundTripCompressibleAndRandom) {
  std::string compressible;
  for (int i = 0; i < 20000; ++i) compressible += "message-" + std::to_string(i % 50) + ";";
  for (const std::string& data : {compressible, random_bytes(200000, 1), std::string()}) {
    std::string framed = encode(data);
    SnappyStreamDecoder dec;
    std::string plain;
    ASSERT_FALSE(dec.put(framed, plain));
    EXPECT_EQ(plain, data);
  }
  EXPECT_LT(encode(compressible).size(), compressible.size() / 2);
}

TEST(SnappyStream, DecodesByteByByte) {
  std::string data = random_bytes(1000, 2) + std::string(70000, 'x');
  std::string framed = encode(data);
  SnappyStreamDecoder dec;
  std::string plain;
  for (char c : framed) ASSERT_FALSE(dec.put(std::string_view(&c, 1), plain));
  EXPECT_EQ(plain, data);
}

TEST(SnappyStream, SkipsPaddingAndSkippableChunks) {
  std::string framed = kIdentifier + "\xfe\x03\x00\x00"s + "abc" + "\x80\x01\x00\x00z"s;
  framed += encode("hello").substr(kIdentifier.size());
  framed += kIdentifier;  // a repeated identifier is allowed
  SnappyStreamDecoder dec;
  std::string plain;
  ASSERT_FALSE(dec.put(framed, plain));
  EXPECT_EQ(plain, "hello");
}

TEST(SnappyStream, BadChecksumIsStickyError) {
  std::string framed = encode("hello world");
  framed[14] ^= 0x01;  // first CRC byte
  SnappyStreamDecoder dec;
  std::string plain;
  EXPECT_EQ(dec.put(framed, plain), errc::bad_checksum);
  EXPECT_EQ(plain, "");
  EXPECT_EQ(dec.put(encode("x").substr(kIdentifier.size()), plain), errc::bad_checksum);
  EXPECT_EQ(dec.error(), errc::bad_checksum);
}

TEST(SnappyStream, FlippedDataByteIsBadChecksum) {
  std::string framed = encode("hello world");
  framed.back() ^= 0x20;
  SnappyStreamDecoder dec;
  std::string plain;
  EXPECT_EQ(dec.put(framed, plain), errc::bad_checksum);
}

TEST(SnappyStream, CorruptCompressedChunk) {
  std::string data(5000, 'a');
  std::string framed = encode(data);
  ASSERT_EQ(framed[10], '\x00');  // compressed
  // Truncate the compressed payload but keep the chunk length consistent.
  std::string body = framed.substr(14 + 4);
  body.resize(body.size() / 2);
  std::string bad = kIdentifier + '\x00';
  std::size_t len = body.size() + 4;
  bad += static_cast<char>(len & 0xff);
  bad += static_cast<char>((len >> 8) & 0xff);
  bad += static_cast<char>((len >> 16) & 0xff);
  bad += framed.substr(14, 4) + body;
  SnappyStreamDecoder dec;
  std::string plain;
  EXPECT_EQ(dec.put(bad, plain), errc::corrupt_chunk);
}

TEST(SnappyStream, MissingOrBadIdentifier) {
  std::string framed = encode("hi");
  {
    SnappyStreamDecoder dec;
    std::string plain;
    EXPECT_EQ(dec.put(framed.substr(kIdentifier.size()), plain), errc::missing_stream_identifier);
  }
  {
    SnappyStreamDecoder dec;
    std::string plain;
    std::string bad = framed;
    bad[4] = 'S';
    EXPECT_EQ(dec.put(bad, plain), errc::bad_stream_identifier);
  }
  {
    SnappyStreamDecoder dec;
    std::string plain;
    EXPECT_EQ(dec.put("\xff\x05\x00\x00sNaPp"s, plain), errc::bad_stream_identifier);
  }
}

TEST(SnappyStream, ReservedUnskippableAndOversizedChunks) {
  {
    SnappyStreamDecoder dec;
    std::string plain;
    EXPECT_EQ(dec.put(kIdentifier + "\x02\x00\x00\x00"s, plain), errc::reserved_chunk);
  }
  {
    SnappyStreamDecoder dec;
    std::string plain;
    // A stored chunk announcing 16 MiB is refused before its bytes arrive.
    EXPECT_EQ(dec.put(kIdentifier + "\x01\xff\xff\xff"s, plain), errc::chunk_too_large);
  }
  {
    SnappyStreamDecoder dec;
    std::string plain;
    EXPECT_EQ(dec.put(kIdentifier + "\x01\x02\x00\x00zz"s, plain), errc::corrupt_chunk);
  }
}

TEST(SnappyStream, PartialChunkWaits) {
  std::string framed = encode("hello");
  SnappyStreamDecoder dec;
  std::string plain;
  ASSERT_FALSE(dec.put(std::string_view(framed).substr(0, framed.size() - 1), plain));
  EXPECT_EQ(plain, "");
  ASSERT_FALSE(dec.put(std::string_view(framed).substr(framed.size() - 1), plain));
  EXPECT_EQ(plain, "hello");
}

// Issue 23: input holding many compressible chunks is decoded a bounded
// step at a time, the rest kept for the next put.
TEST(SnappyStream, BoundedStepsKeepTheRestOfTheInput) {
  std::string plain(4 << 20, 'z');
  for (std::size_t i = 0; i < plain.size(); i += 1000) plain[i] = static_cast<char>('a' + i % 26);
  std::string framed = encode(plain);
  ASSERT_LT(framed.size(), plain.size() / 10);
  for (std::size_t piece : {framed.size(), std::size_t{16384}, std::size_t{5}}) {
    SCOPED_TRACE("pieces of " + std::to_string(piece));
    constexpr std::size_t kStep = 64 * 1024;
    SnappyStreamDecoder dec;
    std::string out;
    std::size_t largest = 0;
    for (std::size_t at = 0; at < framed.size(); at += piece) {
      auto step =
          testutil::decode_in_steps(dec, {std::string_view(framed).substr(at, piece)}, kStep);
      ASSERT_FALSE(step.ec);
      out += step.out;
      largest = std::max(largest, step.largest);
    }
    EXPECT_LE(largest, 2 * kStep);  // stops before the chunk after the limit
    EXPECT_TRUE(out == plain) << out.size() << " of " << plain.size() << " bytes";
  }
}

}  // namespace
}  // namespace nsq::codec
