// IDENTIFY body: JSON decoding, negotiation and the reply must never crash,
// and every accepted request must give a well-formed reply.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "nsq/identify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto request = nsq::parse_identify_json(input);
  if (!request) return 0;
  const nsq::IdentifyLimits limits;
  const auto negotiated = nsq::negotiate_identify(*request, limits);
  if (!negotiated) {
    if (negotiated.error().code.empty() || !negotiated.error().fatal) std::abort();
    return 0;
  }
  const auto& n = *negotiated;
  if (n.sample_rate < 0 || n.sample_rate > 99) std::abort();
  if (n.msg_timeout_ms < 1000 || n.msg_timeout_ms > limits.max_msg_timeout_ms) std::abort();
  if (n.output_buffer_size < 1 || n.output_buffer_size > limits.max_output_buffer_size)
    std::abort();
  if (n.deflate && n.snappy) std::abort();
  if (n.deflate_level > limits.max_deflate_level) std::abort();
  const std::string json = nsq::identify_response_json(n, limits);
  if (json.empty() || json.front() != '{' || json.back() != '}') std::abort();
  // The reply is itself a JSON object nsq's decoder accepts.
  if (!nsq::parse_identify_json(json)) std::abort();
  return 0;
}
