#include "nsq/protocol_error.h"

#include "nsq/frame.h"

namespace nsq {

std::string ProtocolError::render() const {
  std::string s;
  s.reserve(code.size() + 1 + text.size());
  s.append(code);
  if (!text.empty()) s.append(1, ' ').append(text);  // E_BAD_PROTOCOL goes alone
  return s;
}

void append_error_frame(std::string& out, const ProtocolError& e) {
  append_frame(out, FrameType::error, e.render());
}

}  // namespace nsq
