// nsqd's V2 byte stream through the real protocol::V2Session, as ClientConn
// drives it: the input arrives in chunks (the first byte picks their size,
// and whether the fuzz input starts after the magic, as the seeds do),
// commands that carry a body ask for it as their handlers do, and the
// bodies of IDENTIFY go through the real negotiation.
// Invariants: need_more consumes nothing and asks for more than is there;
// a command or body consumes something, never past what arrived; a body's
// views lie inside what it consumed; MPUB messages are non-empty and within
// --max-msg-size; every error is fatal and ends the stream; the stream ends
// (close or error) once the input is exhausted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "nsq/identify.h"
#include "protocol/v2_session.h"

namespace {

namespace protocol = nsq::nsqd::protocol;

// Small limits, so that oversized bodies are reachable.
constexpr std::int64_t kMaxBody = 512;
constexpr std::int64_t kMaxMsg = 128;

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 32;
  std::string stream = (data[0] & 0x80) != 0 ? std::string() : std::string("  V2");
  stream.append(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string_view input = stream;
  protocol::V2Session session(protocol::SessionLimits{kMaxBody, kMaxMsg});
  std::size_t arrived = 0;  // bytes of input "read from the socket" so far
  std::size_t start = 0;    // the read buffer is input[start, arrived)
  bool ended = false;
  for (;;) {
    const std::string_view buffered = input.substr(start, arrived - start);
    protocol::Step step = session.next(buffered, ended);
    switch (step.kind) {
      case protocol::Step::Kind::need_more:
        if (step.consumed != 0 || step.need <= buffered.size()) std::abort();
        if (ended) std::abort();  // the end was given: no more to wait for
        if (arrived == input.size()) {
          ended = true;
        } else {
          arrived = std::min(input.size(), std::max(arrived + chunk, start + step.need));
        }
        continue;
      case protocol::Step::Kind::close:
        return 0;
      case protocol::Step::Kind::error:
        if (!step.error.fatal || step.error.code.empty()) std::abort();
        if (session.next(buffered, ended).kind != protocol::Step::Kind::close) std::abort();
        return 0;
      case protocol::Step::Kind::command: {
        if (step.command == nullptr) std::abort();
        const std::string_view name = step.command->name;
        if (name == "PUB" || name == "DPUB") session.expect_body(protocol::BodyKind::message);
        if (name == "MPUB") session.expect_body(protocol::BodyKind::mpub);
        if (name == "IDENTIFY") session.expect_body(protocol::BodyKind::identify);
        if (name == "AUTH") session.expect_body(protocol::BodyKind::auth);
        break;
      }
      case protocol::Step::Kind::body: {
        const std::string_view taken = buffered.substr(0, step.consumed);
        if (!inside(step.body, taken)) std::abort();
        for (std::string_view m : step.messages) {
          if (m.empty() || m.size() > static_cast<std::size_t>(kMaxMsg) || !inside(m, taken)) {
            std::abort();
          }
        }
        if (step.command->name == "IDENTIFY") {
          auto negotiated = nsq::negotiate_identify_json(step.body, nsq::IdentifyLimits{});
          if (!negotiated && negotiated.error().code.empty()) std::abort();
        }
        break;
      }
    }
    if (step.consumed == 0 || step.consumed > buffered.size()) std::abort();
    start += step.consumed;
  }
}
