// PUB, DPUB and MPUB: the line's checks, then the body's messages go to
// the topic, and the OK waits for the disk where they went to disk.
#include <spdlog/logger.h>

#include <chrono>
#include <vector>

#include "core/broker.h"
#include "core/replication.h"
#include "nsq/names.h"
#include "nsq/parse.h"
#include "nsqd/errc.h"
#include "protocol/errors.h"
#include "protocol/handlers/completion.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

namespace {

using std::chrono::milliseconds;

// DPUB's delay, checked as nsqd checks it (Go's wrapping conversion, then
// 0..--max-defer-timeout, which is --max-req-timeout unless given).
tl::expected<milliseconds, ProtocolError> dpub_delay(const Options& o, std::string_view param) {
  auto defer = parse_decimal_digits(param);
  if (!defer) {
    return tl::unexpected(
        error(ErrorCode::invalid, "DPUB could not parse timeout " + std::string(param)));
  }
  const std::chrono::nanoseconds timeout(go_millis_to_nanos(*defer));
  if (timeout.count() < 0 || timeout > o.defer_limit()) {
    return tl::unexpected(error(
        ErrorCode::invalid,
        "DPUB timeout " + std::to_string(*defer) + " out of range 0-" +
            std::to_string(std::chrono::duration_cast<milliseconds>(o.defer_limit()).count())));
  }
  return std::chrono::duration_cast<milliseconds>(timeout);
}

// Cluster mode on a node that does not lead the topic: the leader takes the
// publish (through its HTTP API, from the blocking pool) and its answer is
// this one.
awaitable<bool> forward(V2Client& client, std::string_view cmd, const std::string& topic_name,
                        const std::vector<std::string_view>& bodies, milliseconds defer,
                        const std::string& leader_http) {
  Completion<std::string> forwarded(client.executor());
  client.broker().blocking_pool().submit(
      [replication = client.broker().replication(), leader_http, topic_name,
       copies = std::vector<std::string>(bodies.begin(), bodies.end()), defer,
       done = forwarded.callback()] {
        done(replication ? replication->forward(leader_http, topic_name, copies, defer)
                         : std::string("exiting"));
      });
  const std::string error = co_await forwarded.wait();
  if (!error.empty()) co_return client.fail(failed(cmd, error));
  client.state().count_published(topic_name, bodies.size());
  client.respond("OK");
  co_return true;
}

// What a publish spilled, written (with --sync-publish, fsynced) without
// holding a disk thread while it waits: concurrent publishers share each
// fsync.
awaitable<std::error_code> write_spill(V2Client& client, DiskWrites spill) {
  if (spill.empty()) co_return std::error_code();
  Completion<std::error_code> written(client.executor());
  std::optional<std::error_code> now =
      client.broker().disk_writer().submit(std::move(spill), written.callback());
  if (now) co_return *now;
  const std::error_code ec = co_await written.wait();
  client.resumed_from_disk();
  co_return ec;
}

// Publishes bodies that point into the connection's read buffer: it is not
// touched until this returns, because the read loop waits for it.
awaitable<bool> publish(V2Client& client, std::string_view cmd, const std::string& topic_name,
                        std::vector<std::string_view> bodies, milliseconds defer) {
  if (client.broker().draining()) co_return client.fail(failed(cmd, "draining"));
  auto topic = client.broker().get_or_create_topic(topic_name);
  if (!topic) co_return client.fail(failed(cmd, "exiting"));
  // A bounded topic or channel with the reject policy: all or nothing.
  if (topic->admit(bodies.size()))
    co_return client.fail(failed(cmd, "topic " + topic_name + " full"));
  // Cluster mode: only the topic's leader, with enough replicas in sync, takes it.
  Replication* replication = client.broker().replication();
  if (replication) {
    Completion<Replication::Admission> admitted(client.executor());
    std::optional<Replication::Admission> admission =
        replication->admit(topic_name, admitted.callback());
    if (!admission) admission = co_await admitted.wait();
    if (!admission->accepted() && !admission->leader_http.empty()) {
      co_return co_await forward(client, cmd, topic_name, bodies, defer, admission->leader_http);
    }
    if (!admission->accepted()) co_return client.fail(failed(cmd, admission->refusal));
    const std::uint32_t epoch = admission->epoch;
    Completion<Replication::Replicated> committed(client.executor());
    replication->replicate(topic_name, epoch, bodies, defer_until_ms(defer), committed.callback());
    const Replication::Replicated replicated = co_await committed.wait();
    if (replicated.error) co_return client.fail(failed(cmd, replicated.error.message()));
    // Committed: durable on enough replicas, and delivered by whichever
    // leader follows if not by this one (docs/replication.md, "Taking
    // over"). The OK goes out before the channels get the messages, so the
    // producer's next command travels while they do; this connection's next
    // command still waits for them, which keeps its publishes in order.
    client.state().count_published(topic_name, bodies.size());
    client.respond("OK");
    client.flush();
    DiskWrites spill;
    std::error_code ec = topic->publish_prepared(replicated.messages, defer, spill);
    if (!ec) ec = co_await write_spill(client, std::move(spill));
    if (ec && ec != make_error_code(errc::exiting)) {
      client.broker().log().error(
          "TOPIC({}): committed messages not given to its channels - {} (a takeover delivers "
          "them)",
          topic_name, ec.message());
    }
    co_return true;
  }
  DiskWrites spill;
  if (std::error_code ec = topic->publish(bodies, defer, spill)) {
    co_return client.fail(failed(cmd, ec.message()));
  }
  if (std::error_code ec = co_await write_spill(client, std::move(spill))) {
    co_return client.fail(failed(cmd, ec.message()));
  }
  client.state().count_published(topic_name, bodies.size());
  client.respond("OK");
  co_return true;
}

}  // namespace

bool pub(V2Client& client, const CommandLine& command) {
  if (command.params.empty()) return client.fail(insufficient_params("PUB"));
  if (!is_valid_topic_name(command.params[0])) {
    return client.fail(bad_topic("PUB", command.params[0]));
  }
  client.expect_body(BodyKind::message);
  return true;
}

bool dpub(V2Client& client, const CommandLine& command) {
  if (command.params.size() < 2) return client.fail(insufficient_params("DPUB"));
  if (!is_valid_topic_name(command.params[0])) {
    return client.fail(bad_topic("DPUB", command.params[0]));
  }
  auto delay = dpub_delay(client.broker().options(), command.params[1]);
  if (!delay) return client.fail(delay.error());
  client.expect_body(BodyKind::message);
  return true;
}

awaitable<bool> mpub(V2Client& client, const CommandLine& command) {
  if (command.params.empty()) co_return client.fail(insufficient_params("MPUB"));
  std::string topic(command.params[0]);
  if (!is_valid_topic_name(topic)) {
    // v1.3.0 really repeats the code in the text.
    ProtocolError e = bad_topic("MPUB", topic);
    e.text = e.code + " " + e.text;
    co_return client.fail(e);
  }
  const std::string no_channel;
  if (!co_await check_auth(client, "MPUB", topic, no_channel)) co_return false;
  if (client.broker().draining()) co_return client.fail(failed("MPUB", "draining"));
  // nsqd creates the topic before it reads the body.
  if (!client.broker().get_or_create_topic(topic)) {
    co_return client.fail(failed("MPUB", "exiting"));
  }
  client.expect_body(BodyKind::mpub);
  co_return true;
}

// (Named locals, not temporaries, as co_await arguments: GCC 12
// miscompiles a braced list there.)
awaitable<bool> publish_body(V2Client& client, const CommandLine& command, const Step& body) {
  const std::string_view cmd = command.name;
  const std::string topic(command.params[0]);
  milliseconds delay(0);
  if (cmd == "MPUB") co_return co_await publish(client, cmd, topic, body.messages, delay);
  const std::string no_channel;
  if (!co_await check_auth(client, cmd, topic, no_channel)) co_return false;
  if (cmd == "DPUB") delay = *dpub_delay(client.broker().options(), command.params[1]);
  std::vector<std::string_view> bodies(1, body.body);
  co_return co_await publish(client, cmd, topic, std::move(bodies), delay);
}

}  // namespace nsq::nsqd::protocol::handlers
