// IDENTIFY's body, decoded as nsqd v1.3.0's json.Unmarshal decodes it.
#include <cstdint>
#include <limits>

#include "nsq/error.h"
#include "nsq/identify.h"
#include "nsq/json/go_object.h"

namespace nsq {

Result<IdentifyRequest> parse_identify_json(std::string_view json) {
  IdentifyRequest r;
  const json::GoInt sample_rate{&r.sample_rate, std::numeric_limits<std::int32_t>::min(),
                                std::numeric_limits<std::int32_t>::max()};  // int32 in nsqd
  const json::GoField fields[] = {
      {"client_id", &r.client_id},
      {"hostname", &r.hostname},
      {"user_agent", &r.user_agent},
      {"topology_region", &r.topology_region},
      {"topology_zone", &r.topology_zone},
      {"heartbeat_interval", json::GoInt{&r.heartbeat_interval}},
      {"output_buffer_size", json::GoInt{&r.output_buffer_size}},
      {"output_buffer_timeout", json::GoInt{&r.output_buffer_timeout}},
      {"sample_rate", sample_rate},
      {"msg_timeout", json::GoInt{&r.msg_timeout}},
      {"deflate_level", json::GoInt{&r.deflate_level}},
      {"feature_negotiation", &r.feature_negotiation},
      {"tls_v1", &r.tls_v1},
      {"snappy", &r.snappy},
      {"deflate", &r.deflate},
  };
  if (!json::decode_go_object(json, fields)) return tl::unexpected(make_error_code(errc::bad_json));
  return r;
}

}  // namespace nsq
