// IDENTIFY: the client's settings, negotiated against nsqd's limits, and
// the upgrades (TLS, snappy, deflate) the connection then performs.
#include <chrono>

#include "core/broker.h"
#include "nsq/identify.h"
#include "protocol/errors.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

namespace {

IdentifyLimits limits_of(const Options& o, bool tls_available) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  IdentifyLimits limits;
  limits.max_heartbeat_interval_ms = duration_cast<milliseconds>(o.max_heartbeat_interval).count();
  limits.default_output_buffer_timeout_ms =
      duration_cast<milliseconds>(o.output_buffer_timeout).count();
  limits.min_output_buffer_timeout_ms =
      duration_cast<milliseconds>(o.min_output_buffer_timeout).count();
  limits.max_output_buffer_timeout_ms =
      duration_cast<milliseconds>(o.max_output_buffer_timeout).count();
  limits.max_output_buffer_size = o.max_output_buffer_size;
  limits.default_msg_timeout_ms = duration_cast<milliseconds>(o.msg_timeout).count();
  limits.max_msg_timeout_ms = duration_cast<milliseconds>(o.max_msg_timeout).count();
  limits.max_deflate_level = o.max_deflate_level;
  limits.max_rdy_count = o.max_rdy_count;
  limits.deflate_enabled = o.deflate;
  limits.snappy_enabled = o.snappy;
  limits.tls_available = tls_available;
  limits.auth_required = !o.auth_http_addresses.empty();
  return limits;
}

}  // namespace

bool identify(V2Client& client, const CommandLine&) {
  if (client.state().phase() != Phase::init) return client.fail(invalid_state("IDENTIFY"));
  client.expect_body(BodyKind::identify);
  return true;
}

bool identify_body(V2Client& client, std::string_view body) {
  const IdentifyLimits limits =
      limits_of(client.broker().options(), client.tls_context() != nullptr);
  auto negotiated = negotiate_identify_json(body, limits);
  if (!negotiated) return client.fail(negotiated.error());
  ClientState& state = client.state();
  state.set_settings(std::move(*negotiated));
  client.heartbeat_changed();
  const NegotiatedIdentify& settings = state.settings();
  if (!settings.feature_negotiation) {
    client.respond("OK");
    return true;
  }
  std::string response = identify_response_json(settings, limits);
  if (!settings.tls_v1 && !settings.snappy && !settings.deflate) {
    client.respond(response);
  } else {
    client.upgrade(std::move(response));
  }
  return true;
}

}  // namespace nsq::nsqd::protocol::handlers
