#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nsq/http/message.h"
#include "nsq/stats/model.h"
#include "nsqd/options.h"

namespace spdlog {
class logger;
}

namespace nsq::nsqd {

class Broker;
class ConnRegistry;

// What /info and /stats report about this process.
struct NodeInfo {
  std::string hostname;
  std::string broadcast_address;
  std::int64_t start_time = 0;  // Unix seconds
  std::function<int()> tcp_port;
  std::function<int()> http_port;
};

// nsqd's HTTP API (http-api.md): routing, Go's "V1" response conventions,
// and one handler per endpoint. Transport-free: the HTTP server hands it
// requests and it answers through `reply` (possibly from a disk thread).
//
// Thread safety: handle() may run on several threads at once.
class HttpApi {
 public:
  using Reply = std::function<void(http::Response)>;

  HttpApi(Broker& broker, ConnRegistry& conns, NodeInfo node, std::shared_ptr<spdlog::logger> log);

  void handle(http::Request request, Reply reply);

  // The largest body `head` may declare before it is refused unread
  // (http::ServerOptions::body_limit): /pub max-msg-size, /mpub
  // max-body-size, as Go checks req.ContentLength first.
  std::size_t body_limit(const http::Request& head) const;

  // The snapshot /stats renders (also used by statsd and /metrics).
  stats::Snapshot snapshot(const std::string& topic_filter, const std::string& channel_filter,
                           bool include_clients, bool include_mem) const;

  // Runtime-changeable options (PUT /config).
  std::vector<std::string> lookupd_tcp_addresses() const;
  // Called when PUT /config/nsqlookupd_tcp_addresses changes the list.
  void on_lookupd_addresses_changed(std::function<void(std::vector<std::string>)> callback);

  // Cluster mode (docs/replication.md), set before serving: a topic's
  // replication for /stats, and the replica count /topic/create?replicas=N
  // asks for (before the topic is created).
  struct Cluster {
    std::function<std::optional<stats::Replication>(const std::string& topic)> replication;
    std::function<void(const std::string& topic, int replicas)> place_topic;
  };
  void set_cluster(Cluster cluster) { cluster_ = std::move(cluster); }

  // PUT /config/drain and /config/shutdown (docs/operations.md), set before
  // serving: start draining; shut down cleanly now.
  struct Lifecycle {
    std::function<void()> drain;
    std::function<void()> shutdown;
  };
  void set_lifecycle(Lifecycle lifecycle) { lifecycle_ = std::move(lifecycle); }

 private:
  void route(const http::Request& req, const Reply& reply);
  void do_ping(const http::Request& req, const Reply& reply);
  void do_debug(const http::Request& req, const Reply& reply);
  void do_info(const http::Request& req, const Reply& reply);
  void do_stats(const http::Request& req, const Reply& reply);
  void do_metrics(const http::Request& req, const Reply& reply);
  void do_pub(const http::Request& req, const Reply& reply);
  std::optional<std::string> publish_topic(const http::Request& req, const Reply& reply);
  void do_mpub(const http::Request& req, const Reply& reply);
  void do_topic(const std::string& action, const http::Request& req, const Reply& reply);
  void do_channel(const std::string& action, const http::Request& req, const Reply& reply);
  void do_settings(bool of_channel, const http::Request& req, const Reply& reply);
  void do_peek(bool of_channel, const http::Request& req, const Reply& reply);
  void do_config(const std::string& opt, const http::Request& req, const Reply& reply);
  void do_lifecycle(const std::string& opt, const http::Request& req, const Reply& reply);
  void publish(const std::string& topic, std::vector<std::string_view> bodies,
               std::chrono::milliseconds defer, bool forwarded, const Reply& reply);

  Broker& broker_;
  ConnRegistry& conns_;
  const NodeInfo node_;
  const std::shared_ptr<spdlog::logger> log_;
  Cluster cluster_;      // set before serving; empty outside cluster mode
  Lifecycle lifecycle_;  // set before serving

  mutable std::mutex mu_;
  Options runtime_;  // guarded by mu_: options with PUT /config changes applied
  std::function<void(std::vector<std::string>)> on_lookupd_changed_;  // guarded by mu_
  bool lookupd_addresses_null_ = false;  // guarded by mu_: PUT null (Go shows null)
};

}  // namespace nsq::nsqd
