#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/protocol_error.h"

namespace nsq {

struct MpubLimits {
  int64_t max_msg_size = 1048576;   // --max-msg-size
  int64_t max_body_size = 5242880;  // --max-body-size
};

// Splits an MPUB body (after its 4-byte size): [int32 count] then count x
// ([int32 size][bytes]). Checks and replies follow nsqd, in its order:
//   E_BAD_BODY    MPUB failed to read message count
//   E_BAD_BODY    MPUB invalid message count <n>      (n <= 0 or > (max_body_size - 4) / 5)
//   E_BAD_MESSAGE MPUB failed to read message(<i>) body size
//   E_BAD_MESSAGE MPUB invalid message(<i>) body size <n>
//   E_BAD_MESSAGE MPUB message too big <n> > <max_msg_size>
//   E_BAD_MESSAGE MPUB failed to read message body
// (i counts from 0). Bytes after the last message are ignored: nsqd reads the
// messages from the stream and never compares them with the body size.
// The views point into body, which must outlive them.
ProtocolResult<std::vector<std::string_view>> parse_mpub_body(std::string_view body,
                                                              const MpubLimits& limits);

// The body of an MPUB command (count then sized messages), for clients and tests.
void append_mpub_body(std::string& out, const std::vector<std::string_view>& messages);

}  // namespace nsq
