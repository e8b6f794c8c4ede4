#include "protocol/errors.h"

#include "nsq/flags/go_strconv.h"

namespace nsq::nsqd::protocol {

std::string_view code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid:
      return "E_INVALID";
    case ErrorCode::bad_protocol:
      return "E_BAD_PROTOCOL";
    case ErrorCode::bad_body:
      return "E_BAD_BODY";
    case ErrorCode::bad_topic:
      return "E_BAD_TOPIC";
    case ErrorCode::bad_channel:
      return "E_BAD_CHANNEL";
    case ErrorCode::bad_message:
      return "E_BAD_MESSAGE";
    case ErrorCode::pub_failed:
      return "E_PUB_FAILED";
    case ErrorCode::mpub_failed:
      return "E_MPUB_FAILED";
    case ErrorCode::dpub_failed:
      return "E_DPUB_FAILED";
    case ErrorCode::sub_failed:
      return "E_SUB_FAILED";
    case ErrorCode::fin_failed:
      return "E_FIN_FAILED";
    case ErrorCode::req_failed:
      return "E_REQ_FAILED";
    case ErrorCode::touch_failed:
      return "E_TOUCH_FAILED";
    case ErrorCode::auth_disabled:
      return "E_AUTH_DISABLED";
    case ErrorCode::auth_failed:
      return "E_AUTH_FAILED";
    case ErrorCode::auth_first:
      return "E_AUTH_FIRST";
    case ErrorCode::unauthorized:
      return "E_UNAUTHORIZED";
  }
  return "E_INVALID";
}

ProtocolError error(ErrorCode code, std::string text) {
  const bool fatal = code != ErrorCode::fin_failed && code != ErrorCode::req_failed &&
                     code != ErrorCode::touch_failed;
  return ProtocolError{std::string(code_name(code)), std::move(text), fatal};
}

ProtocolError invalid_state(std::string_view cmd) {
  return error(ErrorCode::invalid, "cannot " + std::string(cmd) + " in current state");
}

ProtocolError insufficient_params(std::string_view cmd) {
  return error(ErrorCode::invalid, std::string(cmd) + " insufficient number of parameters");
}

ProtocolError bad_topic(std::string_view cmd, std::string_view name) {
  return error(ErrorCode::bad_topic,
               std::string(cmd) + " topic name " + flags::go_quote(name) + " is not valid");
}

ProtocolError failed(std::string_view cmd, std::string_view why) {
  const ErrorCode code = cmd == "MPUB"   ? ErrorCode::mpub_failed
                         : cmd == "DPUB" ? ErrorCode::dpub_failed
                         : cmd == "SUB"  ? ErrorCode::sub_failed
                                         : ErrorCode::pub_failed;
  return error(code, std::string(cmd) + " failed " + std::string(why));
}

}  // namespace nsq::nsqd::protocol
