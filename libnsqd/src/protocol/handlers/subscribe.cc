// SUB: the client joins a topic's channel, created if new, and receives
// its messages from then on (as RDY allows).
#include "core/broker.h"
#include "core/channel.h"
#include "nsq/flags/go_strconv.h"
#include "nsq/names.h"
#include "protocol/errors.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

namespace {

bool join(V2Client& client, const std::string& topic_name, const std::string& channel_name) {
  Broker& broker = client.broker();
  if (broker.draining()) {
    // A consumer helps a drain; a new topic or channel would only hold it up.
    auto existing = broker.find_topic(topic_name);
    if (!existing || !existing->find_channel(channel_name)) {
      return client.fail(failed("SUB", "draining"));
    }
  }
  // An ephemeral topic or channel may be going away right now: try twice.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto topic = broker.get_or_create_topic(topic_name);
    if (!topic) return client.fail(failed("SUB", "exiting"));
    auto channel = topic->get_or_create_channel(channel_name);
    if (!channel) continue;
    const NegotiatedIdentify& settings = client.state().settings();
    const Locality locality =
        locality_of(broker.options(), settings.topology_region, settings.topology_zone);
    switch (channel->add_client(client.state().id(), client.subscriber(), locality)) {
      case Channel::AddResult::ok:
        client.state().subscribe(std::move(topic), std::move(channel));
        client.respond("OK");
        return true;
      case Channel::AddResult::too_many_consumers:
        return client.fail(failed(
            "SUB", "consumers for " + topic_name + ":" + channel_name + " exceeds limit of " +
                       std::to_string(broker.options().max_channel_consumers)));
      case Channel::AddResult::exiting:
        continue;
    }
  }
  return client.fail(failed("SUB", "to deleted topic/channel"));
}

}  // namespace

awaitable<bool> sub(V2Client& client, const CommandLine& command) {
  const ClientState& state = client.state();
  if (state.phase() != Phase::init) co_return client.fail(invalid_state("SUB"));
  if (state.settings().heartbeat_interval_ms <= 0) {
    co_return client.fail(error(ErrorCode::invalid, "cannot SUB with heartbeats disabled"));
  }
  if (command.params.size() < 2) co_return client.fail(insufficient_params("SUB"));
  const std::string topic(command.params[0]), channel(command.params[1]);
  if (!is_valid_topic_name(topic)) co_return client.fail(bad_topic("SUB", topic));
  if (!is_valid_channel_name(channel)) {
    co_return client.fail(error(ErrorCode::bad_channel,
                                "SUB channel name " + flags::go_quote(channel) + " is not valid"));
  }
  if (!co_await check_auth(client, "SUB", topic, channel)) co_return false;
  co_return join(client, topic, channel);
}

}  // namespace nsq::nsqd::protocol::handlers
