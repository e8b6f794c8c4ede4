#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>

namespace nsq::testutil {

// What a stream decoder (libnsq's snappy or deflate) produced when fed
// `pieces` in order, each put() allowed `max_out` bytes and repeated on ""
// while more() says it stopped with work left: how nsqd decodes a client's
// stream without holding all of a bomb's output.
struct SteppedDecode {
  std::string out;
  std::error_code ec;       // the first error; decoding stops there
  std::size_t largest = 0;  // the most one put() appended
};

template <class Decoder>
SteppedDecode decode_in_steps(Decoder& decoder, std::initializer_list<std::string_view> pieces,
                              std::size_t max_out) {
  SteppedDecode result;
  std::string step;
  for (std::string_view piece : pieces) {
    do {
      step.clear();
      result.ec = decoder.put(piece, step, max_out);
      piece = {};
      result.largest = std::max(result.largest, step.size());
      result.out += step;
    } while (!result.ec && decoder.more());
    if (result.ec) break;
  }
  return result;
}

}  // namespace nsq::testutil
