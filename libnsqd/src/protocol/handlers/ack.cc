// FIN, REQ and TOUCH: what the client says about a message in flight to it.
// Their failures (E_FIN_FAILED, ...) are the protocol's only non-fatal errors.
#include <algorithm>
#include <chrono>
#include <optional>
#include <span>
#include <vector>

#include "core/broker.h"
#include "core/channel.h"
#include "nsq/message.h"
#include "nsq/parse.h"
#include "protocol/errors.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

namespace {

// Subscribed, or closing (CLS) and settling what is still in flight; then
// enough parameters and a well-formed id.
std::optional<MessageId> checked_id(V2Client& client, std::string_view cmd, std::size_t need,
                                    const CommandLine& command) {
  const ClientState& state = client.state();
  const bool state_ok =
      (state.phase() == Phase::subscribed || state.phase() == Phase::closing) && state.channel();
  if (!state_ok) {
    client.fail(invalid_state(cmd));
    return std::nullopt;
  }
  if (command.params.size() < need) {
    client.fail(error(ErrorCode::invalid, std::string(cmd) + " insufficient number of params"));
    return std::nullopt;
  }
  auto id = to_message_id(command.params[0]);
  if (!id) client.fail(error(ErrorCode::invalid, "invalid message ID"));
  return id;
}

// The channel refused the ack.
bool ack_failed(V2Client& client, ErrorCode code, std::string_view cmd, std::string_view id,
                Channel::AckResult r) {
  const std::string_view reason =
      r == Channel::AckResult::not_owner ? "client does not own message" : "ID not in flight";
  return client.fail(
      error(code, std::string(cmd) + " " + std::string(id) + " failed " + std::string(reason)));
}

}  // namespace

bool fin(V2Client& client, const CommandLine& command) {
  auto id = checked_id(client, "FIN", 1, command);
  if (!id) return false;
  // With the FINs read with it: a consumer sends them in streams.
  client.finish_later(*id);
  return true;
}

void finish_pending(V2Client& client, std::span<const MessageId> ids) {
  if (ids.empty()) return;
  ClientState& state = client.state();
  std::vector<Channel::AckResult> results(ids.size());
  state.channel()->finish_many(state.id(), ids, results);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (results[i] == Channel::AckResult::ok) {
      state.count_finished();
    } else {
      ack_failed(client, ErrorCode::fin_failed, "FIN",
                 std::string_view(ids[i].data(), ids[i].size()), results[i]);
    }
  }
  client.want_delivery();
}

bool req(V2Client& client, const CommandLine& command) {
  auto id = checked_id(client, "REQ", 2, command);
  if (!id) return false;
  auto timeout = parse_decimal_digits(command.params[1]);
  if (!timeout) {
    return client.fail(
        error(ErrorCode::invalid, "REQ could not parse timeout " + std::string(command.params[1])));
  }
  // Clamped into 0..--max-req-timeout, after Go's wrapping conversion (so
  // 2^64-1 ms, -1 ms to Go, requeues at once).
  const std::chrono::nanoseconds wanted(go_millis_to_nanos(*timeout));
  const auto delay =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::clamp<std::chrono::nanoseconds>(
          wanted, std::chrono::nanoseconds(0), client.broker().options().max_req_timeout));
  ClientState& state = client.state();
  DiskWrites spill;
  const auto r = state.channel()->requeue(state.id(), *id, delay, spill);
  client.broker().disk_writer().submit(std::move(spill), nullptr);
  if (r != Channel::AckResult::ok) {
    return ack_failed(client, ErrorCode::req_failed, "REQ", command.params[0], r);
  }
  state.count_requeued();
  client.want_delivery();
  return true;
}

bool touch(V2Client& client, const CommandLine& command) {
  auto id = checked_id(client, "TOUCH", 1, command);
  if (!id) return false;
  ClientState& state = client.state();
  const auto r = state.channel()->touch(state.id(), *id,
                                        std::chrono::milliseconds(state.settings().msg_timeout_ms));
  if (r != Channel::AckResult::ok) {
    return ack_failed(client, ErrorCode::touch_failed, "TOUCH", command.params[0], r);
  }
  return true;
}

}  // namespace nsq::nsqd::protocol::handlers
