#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/context.h"
#include "nsq/identify.h"
#include "nsq/stats/model.h"
#include "protocol/auth.h"

namespace nsq::nsqd {
class Channel;
class Topic;
}  // namespace nsq::nsqd

namespace nsq::nsqd::protocol {

// Go nsqd's client states, with their numbers in /stats.
enum class Phase { init = 0, subscribed = 3, closing = 4 };

// One V2 client's protocol state: what its commands set, what delivery and
// /stats read. Changed only on the connection's thread, through the setters
// below, which take the lock that /stats (any thread) reads under; that
// thread reads without it.
class ClientState {
 public:
  ClientState(ClientId id, std::string remote, NegotiatedIdentify defaults);

  ClientId id() const noexcept { return id_; }
  // "ip:port" of the peer.
  const std::string& remote() const noexcept { return remote_; }
  Phase phase() const noexcept { return phase_; }
  const NegotiatedIdentify& settings() const noexcept { return settings_; }
  std::int64_t rdy() const noexcept { return rdy_; }
  const std::shared_ptr<Channel>& channel() const noexcept { return channel_; }
  const std::optional<auth::State>& auth() const noexcept { return auth_; }
  bool authorized() const noexcept { return auth_ && !auth_->authorizations.empty(); }

  void set_settings(NegotiatedIdentify settings);
  void set_rdy(std::int64_t count);
  void set_tls(std::string version, std::string cipher_suite);
  void set_auth(auth::State state);
  void subscribe(std::shared_ptr<Topic> topic, std::shared_ptr<Channel> channel);
  // CLS: RDY 0, and FIN/REQ/TOUCH only from now on.
  void start_closing();
  // Leaves the channel; returns it (null when not subscribed).
  std::shared_ptr<Channel> unsubscribe();

  void count_published(const std::string& topic, std::size_t messages);
  void count_delivered(std::size_t n) noexcept {
    message_count_.fetch_add(n, std::memory_order_relaxed);
  }
  void count_finished() noexcept { finish_count_.fetch_add(1, std::memory_order_relaxed); }
  void count_requeued() noexcept { requeue_count_.fetch_add(1, std::memory_order_relaxed); }
  bool is_producer() const noexcept { return is_producer_.load(std::memory_order_relaxed); }

  // For /stats, from any thread (in_flight_count is the channel's to fill).
  stats::Client stats() const;

  // AUTH's secret, kept to ask the auth server again when the grant expires.
  std::string auth_secret;

 private:
  const ClientId id_;
  const std::string remote_;
  const std::int64_t connect_ts_;  // Unix seconds

  mutable std::mutex mu_;  // held by writers and by stats()
  Phase phase_ = Phase::init;
  NegotiatedIdentify settings_;
  std::int64_t rdy_ = 0;
  std::shared_ptr<Topic> topic_;
  std::shared_ptr<Channel> channel_;
  std::optional<auth::State> auth_;
  std::string tls_version_, tls_cipher_;
  std::map<std::string, std::uint64_t> pub_counts_;

  std::atomic<std::uint64_t> message_count_{0};
  std::atomic<std::uint64_t> finish_count_{0};
  std::atomic<std::uint64_t> requeue_count_{0};
  std::atomic<bool> is_producer_{false};
};

}  // namespace nsq::nsqd::protocol
