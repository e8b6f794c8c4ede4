#pragma once

#include <utility>  // before Asio's headers (Boost 1.74)

#include <boost/asio/awaitable.hpp>

#include <optional>

#include "protocol/command_line.h"
#include "protocol/v2_client.h"
#include "protocol/v2_session.h"

// Which handler (protocol/handlers/) runs a command line or a body. Each
// returns false when the connection must close.
namespace nsq::nsqd::protocol {

// Runs the command if it finishes without waiting (every command but SUB
// and MPUB, which may ask the auth server); nullopt: co_await run() instead.
// The common commands (FIN, RDY, PUB...) cost no coroutine this way.
std::optional<bool> run_now(V2Client& client, const CommandLine& command);
boost::asio::awaitable<bool> run(V2Client& client, const CommandLine& command);

// The body the last command asked for (Step::Kind::body).
boost::asio::awaitable<bool> run_body(V2Client& client, const CommandLine& command,
                                      const Step& body);

}  // namespace nsq::nsqd::protocol
