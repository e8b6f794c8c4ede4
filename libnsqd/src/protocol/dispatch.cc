#include "protocol/dispatch.h"

#include "core/broker.h"
#include "protocol/errors.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol {

std::optional<bool> run_now(V2Client& client, const CommandLine& command) {
  const std::string_view name = command.name;
  // A follower's fetch is cluster traffic, not a client's: no TLS, as on
  // the HTTP port (docs/replication.md, "The data path").
  if (name == "CLUSTER_FETCH") return handlers::cluster_fetch(client, command);
  if (name != "IDENTIFY" && client.broker().options().tls_required != TlsRequired::no &&
      !client.tls()) {
    return client.fail(error(ErrorCode::invalid,
                             "cannot " + std::string(name) + " in current state (TLS required)"));
  }
  // The most frequent first.
  if (name == "FIN") return handlers::fin(client, command);
  if (name == "RDY") return handlers::rdy(client, command);
  if (name == "REQ") return handlers::req(client, command);
  if (name == "PUB") return handlers::pub(client, command);
  if (name == "MPUB" || name == "SUB") return std::nullopt;
  if (name == "DPUB") return handlers::dpub(client, command);
  if (name == "NOP") return handlers::nop(client, command);
  if (name == "TOUCH") return handlers::touch(client, command);
  if (name == "CLS") return handlers::cls(client, command);
  if (name == "IDENTIFY") return handlers::identify(client, command);
  if (name == "AUTH") return handlers::auth(client, command);
  return client.fail(error(ErrorCode::invalid, "invalid command " + std::string(name)));
}

boost::asio::awaitable<bool> run(V2Client& client, const CommandLine& command) {
  if (command.name == "MPUB") co_return co_await handlers::mpub(client, command);
  co_return co_await handlers::sub(client, command);
}

boost::asio::awaitable<bool> run_body(V2Client& client, const CommandLine& command,
                                      const Step& body) {
  if (command.name == "IDENTIFY") co_return handlers::identify_body(client, body.body);
  if (command.name == "CLUSTER_FETCH")
    co_return co_await handlers::cluster_fetch_body(client, body.body);
  if (command.name == "AUTH") {
    std::string secret(body.body);
    co_return co_await handlers::auth_body(client, std::move(secret));
  }
  co_return co_await handlers::publish_body(client, command, body);
}

}  // namespace nsq::nsqd::protocol
