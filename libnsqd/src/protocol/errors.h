#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nsq/protocol_error.h"

// The error replies of nsqd's TCP protocol V2: every code in one enum, and
// the texts several commands share, worded as Go nsqd v1.3.0 words them.
namespace nsq::nsqd::protocol {

enum class ErrorCode : std::uint8_t {
  invalid,
  bad_protocol,
  bad_body,
  bad_topic,
  bad_channel,
  bad_message,
  pub_failed,
  mpub_failed,
  dpub_failed,
  sub_failed,
  fin_failed,
  req_failed,
  touch_failed,
  auth_disabled,
  auth_failed,
  auth_first,
  unauthorized,
};

// "E_INVALID", "E_BAD_BODY", ...
std::string_view code_name(ErrorCode code) noexcept;

// The reply; fatal (the connection closes after it) except for E_FIN_FAILED,
// E_REQ_FAILED and E_TOUCH_FAILED, as in nsqd.
ProtocolError error(ErrorCode code, std::string text);

// E_INVALID "cannot <cmd> in current state".
ProtocolError invalid_state(std::string_view cmd);
// E_INVALID "<cmd> insufficient number of parameters" (PUB, MPUB, DPUB, SUB).
ProtocolError insufficient_params(std::string_view cmd);
// E_BAD_TOPIC "<cmd> topic name \"<name>\" is not valid".
ProtocolError bad_topic(std::string_view cmd, std::string_view name);
// E_PUB_FAILED / E_MPUB_FAILED / E_DPUB_FAILED / E_SUB_FAILED "<cmd> failed <why>".
ProtocolError failed(std::string_view cmd, std::string_view why);

}  // namespace nsq::nsqd::protocol
