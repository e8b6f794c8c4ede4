// AUTH, and the authorisation checks PUB, MPUB, DPUB and SUB make: the
// secret goes to the auth server (--auth-http-address) on a worker thread.
#include <random>

#include <spdlog/spdlog.h>

#include "core/broker.h"
#include "core/worker_pool.h"
#include "nsq/flags/go_strconv.h"
#include "nsq/json/writer.h"
#include "protocol/errors.h"
#include "protocol/handlers/completion.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol::handlers {

namespace {

using AuthResult = tl::expected<auth::State, std::string>;

// Asks the auth servers about the client's secret, from a worker thread, and
// resumes on the connection's thread with the answer.
awaitable<AuthResult> query_auth(V2Client& client) {
  const Options& o = client.broker().options();
  const ClientState& state = client.state();
  const std::string& remote = state.remote();
  std::string query = auth::query_string(state.auth_secret, remote.substr(0, remote.rfind(':')),
                                         client.tls(), client.tls_common_name());
  auth::QueryOptions qo;
  qo.connect_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_connect_timeout);
  qo.request_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_request_timeout);
  qo.max_body = static_cast<std::size_t>(o.max_body_size);
  qo.root_ca_file = o.tls_root_ca_file;
  const std::size_t start = std::random_device{}() % o.auth_http_addresses.size();
  spdlog::logger* log = &client.broker().log();  // the Broker outlives the auth pool
  Completion<AuthResult> completion(client.executor());
  client.auth_pool()->submit([done = completion.callback(), addresses = o.auth_http_addresses,
                              start, query = std::move(query), qo, log] {
    std::vector<std::string> failures;
    auto result = auth::query_any(addresses, start, query, qo, failures);
    for (const std::string& f : failures) log->error("{}", f);
    done(std::move(result));
  });
  co_return co_await completion.wait();
}

// The reason stays in the log: it is not the untrusted client's business.
bool auth_failed(V2Client& client, const std::string& reason) {
  client.broker().log().warn("PROTOCOL(V2): [{}] AUTH failed {}", client.state().remote(), reason);
  return client.fail(error(ErrorCode::auth_failed, "AUTH failed"));
}

}  // namespace

bool auth(V2Client& client, const CommandLine& command) {
  if (client.state().phase() != Phase::init) return client.fail(invalid_state("AUTH"));
  if (!command.params.empty()) {
    return client.fail(error(ErrorCode::invalid, "AUTH invalid number of parameters"));
  }
  client.expect_body(BodyKind::auth);
  return true;
}

awaitable<bool> auth_body(V2Client& client, std::string body) {
  ClientState& state = client.state();
  if (state.authorized()) co_return client.fail(error(ErrorCode::invalid, "AUTH already set"));
  if (client.broker().options().auth_http_addresses.empty()) {
    co_return client.fail(error(ErrorCode::auth_disabled, "AUTH disabled"));
  }
  state.auth_secret = std::move(body);
  auto granted = co_await query_auth(client);
  if (!granted) co_return auth_failed(client, granted.error());
  state.set_auth(std::move(*granted));
  const auth::State& grant = *state.auth();
  if (grant.authorizations.empty()) {
    co_return client.fail(error(ErrorCode::unauthorized, "AUTH no authorizations found"));
  }
  std::string reply = "{\"identity\":";
  json::append_string(reply, grant.identity);
  reply += ",\"identity_url\":";
  json::append_string(reply, grant.identity_url);
  reply += ",\"permission_count\":" + std::to_string(grant.authorizations.size()) + "}";
  client.respond(reply);
  co_return true;
}

awaitable<bool> check_auth(V2Client& client, std::string_view cmd, std::string topic,
                           std::string channel) {
  if (client.broker().options().auth_http_addresses.empty()) co_return true;
  ClientState& state = client.state();
  if (!state.authorized()) {
    co_return client.fail(error(ErrorCode::auth_first, "AUTH required before " + std::string(cmd)));
  }
  if (state.auth()->expired(std::chrono::steady_clock::now())) {
    auto granted = co_await query_auth(client);
    if (!granted) co_return auth_failed(client, granted.error());
    state.set_auth(std::move(*granted));
  }
  if (!state.auth()->allows(topic, channel)) {
    co_return client.fail(error(ErrorCode::unauthorized, "AUTH failed for " + std::string(cmd) +
                                                             " on " + flags::go_quote(topic) + " " +
                                                             flags::go_quote(channel)));
  }
  co_return true;
}

}  // namespace nsq::nsqd::protocol::handlers
