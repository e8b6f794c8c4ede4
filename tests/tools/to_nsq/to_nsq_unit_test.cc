// to_nsq's pure parts: the chunk splitting rules (with v1.3.0's last-byte
// quirk) and the --rate token bucket, time as a parameter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chunk_splitter.h"
#include "token_bucket.h"

namespace nsq::tools::to_nsq {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> split_all(char delimiter, const std::vector<std::string>& pieces) {
  ChunkSplitter splitter(delimiter);
  std::vector<std::string> out;
  for (const auto& piece : pieces) {
    splitter.put(piece);
    while (auto m = splitter.next()) out.push_back(*m);
  }
  if (auto last = splitter.finish()) out.push_back(*last);
  return out;
}

TEST(ChunkSplitter, LinesAcrossReads) {
  EXPECT_EQ(split_all('\n', {"ab", "c\nd", "e\n"}), (std::vector<std::string>{"abc", "de"}));
}

TEST(ChunkSplitter, EmptyChunksAreSkipped) {
  EXPECT_EQ(split_all('\n', {"\n\na\n\n"}), (std::vector<std::string>{"a"}));
}

TEST(ChunkSplitter, FinalChunkLosesItsLastByte) {
  EXPECT_EQ(split_all('\n', {"a\nxyz"}), (std::vector<std::string>{"a", "xy"}));
  EXPECT_EQ(split_all(',', {"a,b"}), (std::vector<std::string>{"a"}));
}

TEST(ChunkSplitter, BinaryDelimiter) {
  EXPECT_EQ(split_all('\0', {std::string("a\0b\nc\0", 6)}),
            (std::vector<std::string>{"a", "b\nc"}));
}

TEST(TokenBucket, StartsWithOneTokenThenRefillsAtTheRate) {
  auto t0 = TokenBucket::Clock::time_point{} + 1h;
  TokenBucket bucket(10, t0);
  EXPECT_EQ(bucket.wait_time(t0), TokenBucket::Clock::duration::zero());
  bucket.take(t0);
  EXPECT_EQ(std::chrono::round<std::chrono::milliseconds>(bucket.wait_time(t0)), 100ms);
  EXPECT_EQ(bucket.wait_time(t0 + 100ms), TokenBucket::Clock::duration::zero());
}

TEST(TokenBucket, BurstIsAtMostOneSecond) {
  auto t0 = TokenBucket::Clock::time_point{} + 1h;
  TokenBucket bucket(5, t0);
  auto later = t0 + 10s;  // idle for long: at most 5 tokens saved
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(bucket.wait_time(later), TokenBucket::Clock::duration::zero()) << i;
    bucket.take(later);
  }
  EXPECT_GT(bucket.wait_time(later), TokenBucket::Clock::duration::zero());
}

}  // namespace
}  // namespace nsq::tools::to_nsq
