// Snappy framing decoder: any input, split anywhere, either decodes or fails
// with a sticky codec error; whatever it produced re-encodes and decodes to
// the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "nsq/codec/snappy_stream.h"
#include "testutil/decode_in_steps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  // Decode once whole and once in two pieces: the results must agree.
  nsq::codec::SnappyStreamDecoder whole;
  std::string a;
  const std::error_code ea = whole.put(in, a);
  nsq::codec::SnappyStreamDecoder split;
  std::string b;
  const std::size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  std::error_code eb = split.put(in.substr(0, cut), b);
  if (!eb) eb = split.put(in.substr(cut), b);
  if (ea != eb || a != b) std::abort();
  if (ea && whole.put("x", a) != ea) std::abort();  // sticky

  // In bounded steps (how nsqd decodes), with the same split: the same
  // error and bytes.
  const std::size_t max_out = size == 0 ? 1 : 1 + data[size - 1] % 4096;
  nsq::codec::SnappyStreamDecoder bounded;
  const auto d =
      nsq::testutil::decode_in_steps(bounded, {in.substr(0, cut), in.substr(cut)}, max_out);
  if (d.ec != ea || d.out != a) std::abort();

  nsq::codec::SnappyStreamEncoder enc;
  std::string framed;
  enc.encode(a, framed);
  nsq::codec::SnappyStreamDecoder again;
  std::string c;
  if (again.put(framed, c) || c != a) std::abort();
  return 0;
}
