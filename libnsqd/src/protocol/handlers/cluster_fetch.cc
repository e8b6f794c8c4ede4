// CLUSTER_FETCH, cluster mode's data path on the TCP port
// (docs/replication.md, "The data path"): a follower's fetch of records
// from this node, answered on the connection's own thread when the
// Replicator has the answer, so a round needs no other thread of this node.
#include "core/broker.h"
#include "core/replication.h"
#include "nsq/endian.h"
#include "protocol/errors.h"
#include "protocol/handlers/completion.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

namespace {

constexpr std::string_view kName = "CLUSTER_FETCH";

// Outside cluster mode the command does not exist, as for Go nsqd.
bool unknown(V2Client& client) {
  return client.fail(error(ErrorCode::invalid, "invalid command " + std::string(kName)));
}

struct FetchAnswer {
  int status = 0;
  std::string body;
};

}  // namespace

bool cluster_fetch(V2Client& client, const CommandLine& command) {
  if (client.broker().replication() == nullptr) return unknown(client);
  if (!command.params.empty()) {
    return client.fail(error(ErrorCode::invalid, std::string(kName) + " takes no parameters"));
  }
  client.expect_body(BodyKind::identify);
  return true;
}

awaitable<bool> cluster_fetch_body(V2Client& client, std::string_view body) {
  Replication* replication = client.broker().replication();
  if (replication == nullptr) co_return unknown(client);
  Completion<FetchAnswer> answered(client.executor());
  // The body is decoded before fetch() returns: the read buffer it points
  // into stays as it is until then.
  replication->fetch(body, [done = answered.callback()](int status, std::string answer) {
    done(FetchAnswer{status, std::move(answer)});
  });
  const FetchAnswer answer = co_await answered.wait();
  // [u32 status][body] in a response frame: the follower skips heartbeats.
  std::string framed;
  framed.reserve(4 + answer.body.size());
  append_u32be(framed, static_cast<std::uint32_t>(answer.status));
  framed += answer.body;
  client.respond(framed);
  client.flush();
  co_return true;
}

}  // namespace nsq::nsqd::protocol::handlers
