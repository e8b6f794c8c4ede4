// Raw deflate decoder: any input, split anywhere, gives the same bytes or the
// same sticky error; what it produced round-trips through the encoder.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "nsq/codec/deflate_stream.h"
#include "testutil/decode_in_steps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  nsq::codec::DeflateStreamDecoder whole;
  std::string a;
  const std::error_code ea = whole.put(in, a);
  nsq::codec::DeflateStreamDecoder split;
  std::string b;
  const std::size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  std::error_code eb = split.put(in.substr(0, cut), b);
  if (!eb) eb = split.put(in.substr(cut), b);
  if (ea != eb) std::abort();
  // On error, how far each got may differ by what zlib produced before it
  // noticed; without error both hold the whole output.
  if (!ea && a != b) std::abort();
  if (ea && whole.put("x", a) != ea) std::abort();

  // In bounded steps (how nsqd decodes), with the same split: the same
  // error, and without one the same bytes.
  const std::size_t max_out = size == 0 ? 1 : 1 + data[size - 1] % 4096;
  nsq::codec::DeflateStreamDecoder bounded;
  const auto d =
      nsq::testutil::decode_in_steps(bounded, {in.substr(0, cut), in.substr(cut)}, max_out);
  if (d.ec != ea || (!ea && d.out != a)) std::abort();

  if (a.size() > (1u << 20)) return 0;
  nsq::codec::DeflateStreamEncoder enc(1 + static_cast<int>(size % 9));
  std::string wire;
  enc.encode(a, wire);
  nsq::codec::DeflateStreamDecoder again;
  std::string c;
  if (again.put(wire, c) || c != a) std::abort();
  return 0;
}
