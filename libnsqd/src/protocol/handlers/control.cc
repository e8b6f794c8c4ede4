// RDY, CLS and NOP: how many messages the client takes at once, its wish to
// stop, and nothing at all.
#include "core/broker.h"
#include "nsq/parse.h"
#include "protocol/errors.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

bool rdy(V2Client& client, const CommandLine& command) {
  ClientState& state = client.state();
  if (state.phase() == Phase::closing) return true;  // ignored, as nsqd does
  if (state.phase() != Phase::subscribed) return client.fail(invalid_state("RDY"));
  std::int64_t count = 1;
  if (!command.params.empty()) {
    auto parsed = parse_decimal_digits(command.params[0]);
    if (!parsed) {
      return client.fail(
          error(ErrorCode::invalid, "RDY could not parse count " + std::string(command.params[0])));
    }
    count = static_cast<std::int64_t>(*parsed);  // as Go: 2^64-1 is -1
    const std::int64_t max = client.broker().options().max_rdy_count;
    if (count < 0 || count > max) {
      return client.fail(error(ErrorCode::invalid, "RDY count " + std::to_string(count) +
                                                       " out of range 0-" + std::to_string(max)));
    }
  }
  state.set_rdy(count);
  client.want_delivery();
  return true;
}

bool cls(V2Client& client, const CommandLine&) {
  if (client.state().phase() != Phase::subscribed) return client.fail(invalid_state("CLS"));
  client.state().start_closing();
  client.respond("CLOSE_WAIT");
  return true;
}

bool nop(V2Client&, const CommandLine&) { return true; }

}  // namespace nsq::nsqd::protocol::handlers
