#include "protocol/client_state.h"

#include "core/channel.h"
#include "core/topic.h"

namespace nsq::nsqd::protocol {

ClientState::ClientState(ClientId id, std::string remote, NegotiatedIdentify defaults)
    : id_(id),
      remote_(std::move(remote)),
      connect_ts_(std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count()),
      settings_(std::move(defaults)) {}

void ClientState::set_settings(NegotiatedIdentify settings) {
  std::lock_guard lock(mu_);
  settings_ = std::move(settings);
}

void ClientState::set_rdy(std::int64_t count) {
  std::lock_guard lock(mu_);
  rdy_ = count;
}

void ClientState::set_tls(std::string version, std::string cipher_suite) {
  std::lock_guard lock(mu_);
  tls_version_ = std::move(version);
  tls_cipher_ = std::move(cipher_suite);
}

void ClientState::set_auth(auth::State state) {
  std::lock_guard lock(mu_);
  auth_ = std::move(state);
}

void ClientState::subscribe(std::shared_ptr<Topic> topic, std::shared_ptr<Channel> channel) {
  std::lock_guard lock(mu_);
  topic_ = std::move(topic);
  channel_ = std::move(channel);
  phase_ = Phase::subscribed;
}

void ClientState::start_closing() {
  std::lock_guard lock(mu_);
  rdy_ = 0;
  phase_ = Phase::closing;
}

std::shared_ptr<Channel> ClientState::unsubscribe() {
  std::lock_guard lock(mu_);
  topic_.reset();
  return std::exchange(channel_, nullptr);
}

void ClientState::count_published(const std::string& topic, std::size_t messages) {
  {
    std::lock_guard lock(mu_);
    pub_counts_[topic] += messages;
  }
  is_producer_.store(true, std::memory_order_relaxed);
}

stats::Client ClientState::stats() const {
  stats::Client c;
  {
    std::lock_guard lock(mu_);
    c.client_id = settings_.client_id;
    c.hostname = settings_.hostname;
    c.user_agent = settings_.user_agent;
    c.topology_region = settings_.topology_region;
    c.topology_zone = settings_.topology_zone;
    c.state = static_cast<int>(phase_);
    c.ready_count = rdy_;
    c.sample_rate = settings_.sample_rate;
    c.deflate = settings_.deflate;
    c.snappy = settings_.snappy;
    c.tls = settings_.tls_v1;
    c.tls_version = tls_version_;
    c.tls_cipher_suite = tls_cipher_;
    // Go reports the (deprecated) flag as always true on a TLS connection.
    c.tls_negotiated_protocol_is_mutual = settings_.tls_v1;
    if (auth_ && !auth_->authorizations.empty()) {
      c.authed = true;
      c.auth_identity = auth_->identity;
      c.auth_identity_url = auth_->identity_url;
    }
    for (const auto& [topic, count] : pub_counts_) c.pub_counts.push_back({topic, count});
  }
  c.remote_address = remote_;
  c.connect_ts = connect_ts_;
  c.message_count = message_count_.load(std::memory_order_relaxed);
  c.finish_count = finish_count_.load(std::memory_order_relaxed);
  c.requeue_count = requeue_count_.load(std::memory_order_relaxed);
  return c;
}

}  // namespace nsq::nsqd::protocol
