#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/mpub.h"
#include "nsq/protocol_error.h"
#include "protocol/command_line.h"

namespace nsq::nsqd::protocol {

// The body a command reads after its line, each with its limit and texts.
enum class BodyKind {
  identify,  // [size][JSON]: size in 1..max_body_size, else E_BAD_BODY
  auth,      // [size][secret]: as identify
  message,   // PUB, DPUB [size][body]: size in 1..max_msg_size, else E_BAD_MESSAGE
  mpub,      // [size][count]([size][body])...: size in 1..max_body_size, then read
             // from the stream (MpubReader), not bounded by size
};

struct SessionLimits {
  std::int64_t max_body_size = 5242880;  // --max-body-size
  std::int64_t max_msg_size = 1048576;   // --max-msg-size
};

// What the byte stream holds next, and what the connection does about it.
struct Step {
  enum class Kind {
    need_more,  // read until the unconsumed input holds `need` bytes
    command,    // a command line: run it (it may ask for a body: expect_body)
    body,       // the body the last command asked for
    error,      // reply `error`, then close (these are all fatal)
    close,      // close without a reply: the stream ended between commands,
                // a line outgrew the 16 KiB nsqd reads lines with
  };
  Kind kind = Kind::need_more;
  std::size_t need = 0;
  // command, body: bytes of the input this step took. The caller drops them
  // once it is done with the step (body and messages point into them).
  std::size_t consumed = 0;
  const CommandLine* command = nullptr;    // command, body: valid until the next line
  std::string_view body;                   // body of identify, auth, message
  std::vector<std::string_view> messages;  // body of mpub
  ProtocolError error;
};

// nsqd's protocol V2 as bytes in, steps out, without a socket: the magic,
// command lines, and the bodies commands ask for, with their sizes and
// limits checked here and nowhere else. The connection reads, runs commands
// and writes; a test or fuzzer feeds bytes the same way.
//
// Each call looks at all the input read and not consumed yet; a need_more
// step consumes nothing, so the same prefix comes back longer next time.
class V2Session {
 public:
  explicit V2Session(SessionLimits limits) noexcept : limits_(limits) {}

  // `ended`: the stream ended (EOF or error); no byte will follow `input`.
  Step next(std::string_view input, bool ended);

  // After a command step: the command's body comes next.
  void expect_body(BodyKind kind);

  // The four bytes a client sent instead of "  V2" (after an E_BAD_PROTOCOL).
  std::string_view bad_magic() const noexcept { return bad_magic_; }

 private:
  enum class Stage { magic, line, body, done };

  Step on_magic(std::string_view input, bool ended);
  Step on_line(std::string_view input, bool ended);
  Step on_body(std::string_view input, bool ended);
  Step on_mpub(std::string_view input, std::int32_t size, bool ended);
  // The size's check for the expected body; nullopt when it passes.
  std::optional<ProtocolError> check_size(std::int32_t size) const;
  Step fail(ProtocolError error);

  const SessionLimits limits_;
  Stage stage_ = Stage::magic;
  std::string line_;  // the command line being run; command_ points into it
  CommandLine command_;
  BodyKind body_ = BodyKind::message;
  std::optional<MpubReader> mpub_;
  std::string bad_magic_;
};

}  // namespace nsq::nsqd::protocol
