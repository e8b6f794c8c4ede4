// FrameDecoder: the frames must not depend on how the stream is split, and
// re-encoding them must give back the consumed bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/frame.h"

namespace {

constexpr size_t kLimit = 1 << 16;

std::vector<nsq::Frame> drain(nsq::FrameDecoder& d) {
  std::vector<nsq::Frame> out;
  while (auto f = d.next()) out.push_back(std::move(*f));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte seeds the chunk sizes, the rest is the stream.
  const unsigned seed = data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);

  nsq::FrameDecoder whole(kLimit);
  whole.put(stream);
  const std::vector<nsq::Frame> expected = drain(whole);

  nsq::FrameDecoder chunked(kLimit);
  std::vector<nsq::Frame> got;
  for (size_t pos = 0, i = 0; pos < stream.size(); ++i) {
    const size_t n = std::min(stream.size() - pos, size_t{1} + (seed * (i + 1)) % 17);
    chunked.put(stream.substr(pos, n));
    pos += n;
    for (auto& f : drain(chunked)) got.push_back(std::move(f));
  }
  if (got != expected || chunked.error() != whole.error()) std::abort();

  std::string reencoded;
  for (const auto& f : expected) nsq::append_frame(reencoded, f.type, f.data);
  if (stream.substr(0, reencoded.size()) != reencoded) std::abort();
  if (reencoded.size() + whole.buffered() != stream.size()) std::abort();
  return 0;
}
