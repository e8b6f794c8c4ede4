#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nsq/protocol_error.h"
#include "nsq/result.h"

namespace nsq {

// The IDENTIFY body as Go's encoding/json would fill nsqd's struct: an absent
// or null field keeps its zero value, which the negotiation reads as "keep
// the server default".
struct IdentifyRequest {
  std::string client_id{};
  std::string hostname{};
  std::string user_agent{};
  // Go master (topology-aware consumption): where the client runs.
  std::string topology_region{};
  std::string topology_zone{};
  int64_t heartbeat_interval = 0;     // ms; -1 disables
  int64_t output_buffer_size = 0;     // bytes; -1 unbuffered
  int64_t output_buffer_timeout = 0;  // ms; -1 no timed flush
  int64_t sample_rate = 0;            // int32 in nsqd: wider values are a decode error
  int64_t msg_timeout = 0;            // ms
  int64_t deflate_level = 0;
  bool feature_negotiation = false;
  bool tls_v1 = false;
  bool snappy = false;
  bool deflate = false;

  friend bool operator==(const IdentifyRequest&, const IdentifyRequest&) = default;
};

// Go encoding/json semantics: keys match case-insensitively (with Go's
// Unicode folds), unknown keys and null values are ignored, the top level
// must be an object (or null), wrong types and numbers with a fraction or
// exponent for int fields fail. Any failure is errc::bad_json.
Result<IdentifyRequest> parse_identify_json(std::string_view json);

// Server settings IDENTIFY is validated against (nsqd flags, in ms).
struct IdentifyLimits {
  int64_t default_heartbeat_interval_ms = 30000;  // half the fixed 60 s client timeout
  int64_t max_heartbeat_interval_ms = 60000;
  int64_t default_output_buffer_size = 16384;
  int64_t default_output_buffer_timeout_ms = 250;
  int64_t min_output_buffer_timeout_ms = 25;
  int64_t max_output_buffer_timeout_ms = 30000;
  int64_t max_output_buffer_size = 65536;
  int64_t default_msg_timeout_ms = 60000;
  int64_t max_msg_timeout_ms = 900000;
  int64_t max_deflate_level = 6;
  bool deflate_enabled = true;
  bool snappy_enabled = true;
  bool tls_available = false;  // a TLS cert and key are configured
  bool auth_required = false;  // an --auth-http-address is configured
  int64_t max_rdy_count = 2500;
};

// A client's effective settings after IDENTIFY.
struct NegotiatedIdentify {
  int64_t heartbeat_interval_ms = 30000;  // -1: disabled (no heartbeats, no deadlines, no SUB)
  int64_t output_buffer_size = 16384;
  int64_t output_buffer_timeout_ms = 250;  // 0: no timed flush
  int64_t sample_rate = 0;
  int64_t msg_timeout_ms = 60000;
  // Upgrades: all false unless feature_negotiation.
  bool tls_v1 = false;
  bool deflate = false;
  int64_t deflate_level = 6;
  bool snappy = false;
  // false: reply plain "OK" and do no upgrade; true: reply identify_response_json().
  bool feature_negotiation = false;
  std::string client_id{};
  std::string hostname{};
  std::string user_agent{};
  std::string topology_region{};
  std::string topology_zone{};

  friend bool operator==(const NegotiatedIdentify&, const NegotiatedIdentify&) = default;
};

// Validates the fields in nsqd's order and returns the settings or the reply:
// E_BAD_BODY "IDENTIFY <reason>" for a field out of range (e.g. "IDENTIFY
// heartbeat interval (500) is invalid"), E_IDENTIFY_FAILED "cannot enable
// both deflate and snappy compression". All fatal.
ProtocolResult<NegotiatedIdentify> negotiate_identify(const IdentifyRequest& request,
                                                      const IdentifyLimits& limits);

// parse_identify_json + negotiate_identify; a decode failure becomes
// E_BAD_BODY "IDENTIFY failed to decode JSON body".
ProtocolResult<NegotiatedIdentify> negotiate_identify_json(std::string_view json,
                                                           const IdentifyLimits& limits);

// The compact JSON reply to a feature-negotiating IDENTIFY, keys in nsqd's
// order (max_rdy_count, version, max_msg_timeout, msg_timeout, tls_v1,
// deflate, deflate_level, max_deflate_level, snappy, sample_rate,
// auth_required, output_buffer_size, output_buffer_timeout).
std::string identify_response_json(const NegotiatedIdentify& negotiated,
                                   const IdentifyLimits& limits,
                                   std::string_view version = "1.3.0");

}  // namespace nsq
