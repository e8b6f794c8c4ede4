#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nsq/protocol_error.h"

namespace nsq {

struct MpubLimits {
  int64_t max_msg_size = 1048576;   // --max-msg-size
  int64_t max_body_size = 5242880;  // --max-body-size
};

// Reads an MPUB's count and messages the way nsqd does: from the stream that
// follows the command's 4-byte body size, which nsqd checks (> 0, <=
// --max-body-size) but never uses to bound these reads. Clients rely on that:
// squeaky declares the sum of the payloads alone. What follows the last
// message is the next command.
//
// Sans-I/O: put() is given the bytes buffered after the body size, the same
// prefix growing from call to call, and carries on from where it stopped.
class MpubReader {
 public:
  enum class Status { need_more, done, failed };

  explicit MpubReader(const MpubLimits& limits) : limits_(limits) {}

  Status put(std::string_view buffered);
  // need_more: how many bytes `buffered` must hold before the next put().
  std::size_t need() const noexcept { return need_; }
  // done: how many bytes of the stream the MPUB took.
  std::size_t consumed() const noexcept { return pos_; }
  // done: the message bodies, as views into `buffered` (which must outlive them).
  std::vector<std::string_view> messages(std::string_view buffered) const;
  // failed: why. The checks and replies follow nsqd, in its order:
  //   E_BAD_BODY    MPUB invalid message count <n>      (n <= 0 or > (max_body_size - 4) / 5)
  //   E_BAD_MESSAGE MPUB invalid message(<i>) body size <n>
  //   E_BAD_MESSAGE MPUB message too big <n> > <max_msg_size>
  const ProtocolError& error() const noexcept { return error_; }
  // need_more when the stream ends: what nsqd answers there.
  //   E_BAD_BODY    MPUB failed to read message count
  //   E_BAD_MESSAGE MPUB failed to read message(<i>) body size
  //   E_BAD_MESSAGE MPUB failed to read message body
  // (i counts from 0).
  ProtocolError truncated() const;

 private:
  enum class Stage { count, size, body, done };

  MpubLimits limits_;
  Stage stage_ = Stage::count;
  std::int32_t count_ = 0;
  std::size_t pos_ = 0;                                     // bytes parsed
  std::size_t need_ = 4;                                    // bytes needed for the next step
  std::size_t body_size_ = 0;                               // of the message being read
  std::vector<std::pair<std::size_t, std::size_t>> spans_;  // offset, size
  ProtocolError error_;
};

// Splits an MPUB body (after its 4-byte size): [int32 count] then count x
// ([int32 size][bytes]). Checks and replies follow nsqd, in its order:
//   E_BAD_BODY    MPUB failed to read message count
//   E_BAD_BODY    MPUB invalid message count <n>      (n <= 0 or > (max_body_size - 4) / 5)
//   E_BAD_MESSAGE MPUB failed to read message(<i>) body size
//   E_BAD_MESSAGE MPUB invalid message(<i>) body size <n>
//   E_BAD_MESSAGE MPUB message too big <n> > <max_msg_size>
//   E_BAD_MESSAGE MPUB failed to read message body
// (i counts from 0): MpubReader over the whole body, a body cut short
// answered as the stream's end. Bytes after the last message are ignored.
// The views point into body, which must outlive them.
ProtocolResult<std::vector<std::string_view>> parse_mpub_body(std::string_view body,
                                                              const MpubLimits& limits);

// The body of an MPUB command (count then sized messages), for clients and tests.
void append_mpub_body(std::string& out, const std::vector<std::string_view>& messages);

}  // namespace nsq
