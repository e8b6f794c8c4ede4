#include "nsq/codec/deflate_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "nsq/codec/errc.h"
#include "testutil/decode_in_steps.h"

namespace nsq::codec {
namespace {

using namespace std::string_literals;

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

TEST(DeflateStream, EveryEncodeEndsWithSyncFlush) {
  DeflateStreamEncoder enc(3);
  std::string out;
  enc.encode("\x00\x00\x00\x06\x00\x00\x00\x00OK"s, out);
  ASSERT_GE(out.size(), 4u);
  EXPECT_EQ(out.substr(out.size() - 4), "\x00\x00\xff\xff"s);
  std::size_t first = out.size();
  enc.encode("", out);  // nothing new since the last flush: zlib adds nothing
  EXPECT_EQ(out.size(), first);
}

TEST(DeflateStream, DecodesGoNsqdBytes) {
  // The OK frame as Go nsqd sent it at level 3, plus an extra empty flush.
  std::string go =
      "\x62\x60\x60\x60\x63\x60\x60\x60\xf0\xf7\x06\x00\x00\x00\xff\xff"s + "\x00\x00\x00\xff\xff"s;
  DeflateStreamDecoder dec;
  std::string plain;
  ASSERT_FALSE(dec.put(go, plain));
  EXPECT_EQ(plain, "\x00\x00\x00\x06\x00\x00\x00\x00OK"s);
}

TEST(DeflateStream, RoundTripInPiecesAtEveryLevel) {
  std::string compressible;
  for (int i = 0; i < 5000; ++i) compressible += "body-" + std::to_string(i % 7) + "|";
  std::string data = compressible + random_bytes(100000, 3);
  for (int level = 1; level <= 9; ++level) {
    DeflateStreamEncoder enc(level);
    DeflateStreamDecoder dec;
    std::string wire, plain;
    // Several encodes, each flushed, decoded as they come and in odd pieces.
    for (std::size_t off = 0; off < data.size(); off += 30011) {
      std::size_t before = wire.size();
      enc.encode(std::string_view(data).substr(off, 30011), wire);
      std::string_view fresh = std::string_view(wire).substr(before);
      while (!fresh.empty()) {
        std::size_t n = std::min<std::size_t>(fresh.size(), 777);
        ASSERT_FALSE(dec.put(fresh.substr(0, n), plain));
        fresh.remove_prefix(n);
      }
      // After a sync flush everything sent so far is decodable.
      EXPECT_EQ(plain.size(), std::min(data.size(), off + 30011)) << "level " << level;
    }
    EXPECT_EQ(plain, data);
  }
}

TEST(DeflateStream, NoiseIsStickyError) {
  DeflateStreamDecoder dec;
  std::string plain;
  std::error_code ec;
  // Random bytes are not a deflate stream for long: a reserved block type
  // (11) or an invalid code shows up quickly.
  std::string noise = random_bytes(4096, 4);
  noise[0] = '\x07';  // final block bit + reserved type 11
  ec = dec.put(noise, plain);
  EXPECT_EQ(ec, errc::corrupt_deflate);
  EXPECT_EQ(dec.put("more", plain), errc::corrupt_deflate);
}

TEST(DeflateStream, RandomNoiseFailsSomewhere) {
  for (unsigned seed = 10; seed < 30; ++seed) {
    DeflateStreamDecoder dec;
    std::string plain;
    std::error_code ec = dec.put(random_bytes(65536, seed), plain);
    EXPECT_TRUE(ec) << "seed " << seed;
  }
}

TEST(DeflateStream, DataAfterFinalBlock) {
  // A final empty stored block (bit 1, type 00) then more bytes.
  std::string final_block = "\x01\x00\x00\xff\xff"s;
  DeflateStreamDecoder dec;
  std::string plain;
  EXPECT_EQ(dec.put(final_block + "x", plain), errc::deflate_ended);
}

// Issue 23: a 16 KiB bomb inflating to 16 MiB is decoded in bounded steps,
// the undecoded input kept between them, whatever the input's split.
TEST(DeflateStream, BoundedStepsDecodeABombWithoutHoldingIt) {
  std::string plain(16 << 20, '\0');
  for (std::size_t i = 0; i < plain.size(); i += 4096) plain[i] = static_cast<char>(i >> 12);
  DeflateStreamEncoder enc(9);
  std::string bomb;
  enc.encode(plain, bomb);
  ASSERT_LT(bomb.size(), 128u * 1024);
  for (std::size_t piece : {bomb.size(), std::size_t{16384}, std::size_t{7}}) {
    SCOPED_TRACE("pieces of " + std::to_string(piece));
    constexpr std::size_t kStep = 64 * 1024;
    DeflateStreamDecoder dec;
    std::string out;
    std::size_t largest = 0;
    for (std::size_t at = 0; at < bomb.size(); at += piece) {
      auto step = testutil::decode_in_steps(dec, {std::string_view(bomb).substr(at, piece)}, kStep);
      ASSERT_FALSE(step.ec);
      out += step.out;
      largest = std::max(largest, step.largest);
    }
    EXPECT_LE(largest, kStep);
    EXPECT_TRUE(out == plain) << out.size() << " of " << plain.size() << " bytes";
  }
}

}  // namespace
}  // namespace nsq::codec
