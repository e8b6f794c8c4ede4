#include "nsq/identify.h"

#include <algorithm>
#include <string>

#include "nsq/json/writer.h"

namespace nsq {
namespace {

constexpr int64_t kMinHeartbeatIntervalMs = 1000;
constexpr int64_t kMinOutputBufferSize = 64;
constexpr int64_t kMaxSampleRate = 99;
constexpr int64_t kMinMsgTimeoutMs = 1000;
constexpr int64_t kDefaultDeflateLevel = 6;

ProtocolError invalid(std::string_view what, int64_t value) {
  return fatal_error("E_BAD_BODY", "IDENTIFY " + std::string(what) + " (" + std::to_string(value) +
                                       ") is invalid");
}

}  // namespace

ProtocolResult<NegotiatedIdentify> negotiate_identify(const IdentifyRequest& r,
                                                      const IdentifyLimits& limits) {
  NegotiatedIdentify n;
  n.client_id = r.client_id;
  n.hostname = r.hostname;
  n.user_agent = r.user_agent;
  n.topology_region = r.topology_region;
  n.topology_zone = r.topology_zone;
  n.heartbeat_interval_ms = limits.default_heartbeat_interval_ms;
  n.output_buffer_size = limits.default_output_buffer_size;
  n.output_buffer_timeout_ms = limits.default_output_buffer_timeout_ms;
  n.msg_timeout_ms = limits.default_msg_timeout_ms;

  // The order of the checks is nsqd's: it decides which error a client
  // with several bad fields sees.
  if (r.heartbeat_interval == -1) {
    n.heartbeat_interval_ms = -1;
  } else if (r.heartbeat_interval != 0) {
    if (r.heartbeat_interval < kMinHeartbeatIntervalMs ||
        r.heartbeat_interval > limits.max_heartbeat_interval_ms) {
      return tl::unexpected(invalid("heartbeat interval", r.heartbeat_interval));
    }
    n.heartbeat_interval_ms = r.heartbeat_interval;
  }

  if (r.output_buffer_timeout == -1) {
    n.output_buffer_timeout_ms = 0;
  } else if (r.output_buffer_timeout != 0) {
    if (r.output_buffer_timeout < limits.min_output_buffer_timeout_ms ||
        r.output_buffer_timeout > limits.max_output_buffer_timeout_ms) {
      return tl::unexpected(invalid("output buffer timeout", r.output_buffer_timeout));
    }
    n.output_buffer_timeout_ms = r.output_buffer_timeout;
  }

  if (r.output_buffer_size == -1) {
    n.output_buffer_size = 1;  // every write goes straight through
    n.output_buffer_timeout_ms = 0;
  } else if (r.output_buffer_size != 0) {
    if (r.output_buffer_size < kMinOutputBufferSize ||
        r.output_buffer_size > limits.max_output_buffer_size) {
      return tl::unexpected(invalid("output buffer size", r.output_buffer_size));
    }
    n.output_buffer_size = r.output_buffer_size;
  }

  if (r.sample_rate < 0 || r.sample_rate > kMaxSampleRate) {
    return tl::unexpected(invalid("sample rate", r.sample_rate));
  }
  n.sample_rate = r.sample_rate;

  if (r.msg_timeout != 0) {
    if (r.msg_timeout < kMinMsgTimeoutMs || r.msg_timeout > limits.max_msg_timeout_ms) {
      return tl::unexpected(invalid("msg timeout", r.msg_timeout));
    }
    n.msg_timeout_ms = r.msg_timeout;
  }

  if (!r.feature_negotiation) return n;
  n.feature_negotiation = true;
  n.tls_v1 = r.tls_v1 && limits.tls_available;
  n.deflate = r.deflate && limits.deflate_enabled;
  n.deflate_level = n.deflate && r.deflate_level > 0 ? r.deflate_level : kDefaultDeflateLevel;
  // Capped even when deflate is off: the reply shows the capped level.
  n.deflate_level = std::min(n.deflate_level, limits.max_deflate_level);
  n.snappy = r.snappy && limits.snappy_enabled;
  if (n.deflate && n.snappy) {
    return tl::unexpected(
        fatal_error("E_IDENTIFY_FAILED", "cannot enable both deflate and snappy compression"));
  }
  return n;
}

ProtocolResult<NegotiatedIdentify> negotiate_identify_json(std::string_view json,
                                                           const IdentifyLimits& limits) {
  const auto request = parse_identify_json(json);
  if (!request) {
    return tl::unexpected(fatal_error("E_BAD_BODY", "IDENTIFY failed to decode JSON body"));
  }
  return negotiate_identify(*request, limits);
}

std::string identify_response_json(const NegotiatedIdentify& n, const IdentifyLimits& limits,
                                   std::string_view version) {
  std::string out;
  out.reserve(320);
  out.append("{\"max_rdy_count\":");
  json::append_int(out, limits.max_rdy_count);
  out.append(",\"version\":");
  json::append_string(out, version);
  out.append(",\"max_msg_timeout\":");
  json::append_int(out, limits.max_msg_timeout_ms);
  out.append(",\"msg_timeout\":");
  json::append_int(out, n.msg_timeout_ms);
  out.append(",\"tls_v1\":");
  json::append_bool(out, n.tls_v1);
  out.append(",\"deflate\":");
  json::append_bool(out, n.deflate);
  out.append(",\"deflate_level\":");
  json::append_int(out, n.deflate_level);
  out.append(",\"max_deflate_level\":");
  json::append_int(out, limits.max_deflate_level);
  out.append(",\"snappy\":");
  json::append_bool(out, n.snappy);
  out.append(",\"sample_rate\":");
  json::append_int(out, n.sample_rate);
  out.append(",\"auth_required\":");
  json::append_bool(out, limits.auth_required);
  out.append(",\"output_buffer_size\":");
  json::append_int(out, n.output_buffer_size);
  out.append(",\"output_buffer_timeout\":");
  json::append_int(out, n.output_buffer_timeout_ms);
  out.push_back('}');
  return out;
}

}  // namespace nsq
