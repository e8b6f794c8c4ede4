#pragma once

#include <span>

#include <utility>  // before Asio's headers (Boost 1.74)

#include <boost/asio/awaitable.hpp>

#include <string>
#include <string_view>

#include "nsq/message.h"
#include "protocol/command_line.h"
#include "protocol/v2_client.h"
#include "protocol/v2_session.h"

// One function per V2 command (and per body, for those that carry one),
// grouped by family: identify.cc, auth.cc, publish.cc, subscribe.cc,
// ack.cc (FIN, REQ, TOUCH) and control.cc (RDY, CLS, NOP). Each checks its
// command in Go nsqd's order, acts, queues its reply through the client, and
// returns false when the connection must close (after a fatal error).
namespace nsq::nsqd::protocol::handlers {

template <class T>
using awaitable = boost::asio::awaitable<T>;

bool identify(V2Client& client, const CommandLine& command);
bool identify_body(V2Client& client, std::string_view body);

bool auth(V2Client& client, const CommandLine& command);
awaitable<bool> auth_body(V2Client& client, std::string body);
// Go's CheckAuth for PUB/MPUB/DPUB (channel "") and SUB: allowed, after
// asking the auth server again if the grant expired; else the fatal error.
awaitable<bool> check_auth(V2Client& client, std::string_view cmd, std::string topic,
                           std::string channel);

bool pub(V2Client& client, const CommandLine& command);
bool dpub(V2Client& client, const CommandLine& command);
awaitable<bool> mpub(V2Client& client, const CommandLine& command);
// The body of PUB, DPUB or MPUB: the messages are published, and the OK
// waits until they are on disk where they went to disk.
awaitable<bool> publish_body(V2Client& client, const CommandLine& command, const Step& body);

awaitable<bool> sub(V2Client& client, const CommandLine& command);

// A cluster follower's fetch (cluster_fetch.cc); an unknown command outside
// cluster mode.
bool cluster_fetch(V2Client& client, const CommandLine& command);
awaitable<bool> cluster_fetch_body(V2Client& client, std::string_view body);

bool fin(V2Client& client, const CommandLine& command);
// The FINs a connection put off (V2Client::finish_later), finished under one
// lock of its channel; each failure reported as E_FIN_FAILED, in order.
void finish_pending(V2Client& client, std::span<const MessageId> ids);
bool req(V2Client& client, const CommandLine& command);
bool touch(V2Client& client, const CommandLine& command);

bool rdy(V2Client& client, const CommandLine& command);
bool cls(V2Client& client, const CommandLine& command);
bool nop(V2Client& client, const CommandLine& command);

}  // namespace nsq::nsqd::protocol::handlers
