#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace nsq {

// An error reply of the TCP protocol: sent as an error frame "<code> <text>".
// Fatal errors close the connection after the frame; only E_FIN_FAILED,
// E_REQ_FAILED and E_TOUCH_FAILED are not fatal.
struct ProtocolError {
  std::string code;  // e.g. "E_BAD_BODY"
  std::string text;  // e.g. "MPUB invalid message count 0"
  bool fatal = true;

  // "<code> <text>", the error frame's data.
  std::string render() const;

  friend bool operator==(const ProtocolError&, const ProtocolError&) = default;
};

// A value, or the error reply the command produces instead.
template <class T>
using ProtocolResult = tl::expected<T, ProtocolError>;

inline ProtocolError fatal_error(std::string_view code, std::string_view text) {
  return {std::string(code), std::string(text), true};
}

// Appends the error frame (type 1) for e.
void append_error_frame(std::string& out, const ProtocolError& e);

}  // namespace nsq
