#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace spdlog {
class logger;
}

namespace nsq::nsqd {

// nsqd's side of nsqlookupd (lookupd.md §4): one TCP V1 connection per
// configured lookupd, IDENTIFY + REGISTER of every topic and channel on each
// (re)connect, REGISTER/UNREGISTER as they come and go, PING every 15 s.
//
// Threading: one thread of its own runs every connection with blocking
// sockets (1 s deadlines), so a slow or dead lookupd never blocks an I/O
// thread; the public members are thread-safe and only queue work for it.
class LookupClient {
 public:
  struct Identity {
    std::string broadcast_address;
    std::string hostname;
    int tcp_port = 0;             // broadcast TCP port
    int http_port = 0;            // broadcast HTTP port
    std::string topology_region;  // sent only when set (Go master)
    std::string topology_zone;
  };
  // Topic -> its channels, to register everything after a (re)connect.
  using Topology = std::vector<std::pair<std::string, std::vector<std::string>>>;

  struct Settings {
    std::vector<std::string> addresses;  // lookupd "host:port" (TCP)
    Identity identity;
    std::int64_t max_body_size = 5 * 1024 * 1024;
    std::chrono::milliseconds http_connect_timeout{2000};
    std::chrono::milliseconds http_request_timeout{5000};
    std::chrono::milliseconds ping_interval{15000};
  };

  LookupClient(Settings settings, std::function<Topology()> topology,
               std::shared_ptr<spdlog::logger> log);
  ~LookupClient();  // stop()
  LookupClient(const LookupClient&) = delete;
  LookupClient& operator=(const LookupClient&) = delete;

  void start();
  void stop();

  // A topic (channel empty) or channel appeared or went away.
  void registration_changed(bool added, const std::string& topic, const std::string& channel);
  // PUT /config/nsqlookupd_tcp_addresses: drop removed lookupds, connect new ones.
  void set_addresses(std::vector<std::string> addresses);

  // The non-ephemeral-or-not channel names lookupds know for `topic`, unioned
  // and sorted (GET /channels on each identified lookupd, in parallel). Blocks
  // for up to the HTTP timeouts. nullopt: lookupds are configured but none
  // has answered IDENTIFY yet.
  std::optional<std::vector<std::string>> channels_of(const std::string& topic);

  bool configured() const;

 private:
  struct Peer {
    std::string address;
    int fd = -1;
    // From the lookupd's IDENTIFY answer: where its HTTP API is.
    std::string lookupd_broadcast_address;
    int lookupd_http_port = 0;
  };

  void run();
  // Sends one command (connecting and identifying first when needed) and
  // reads its response; false on any error (the peer is then closed).
  bool command(Peer& peer, const std::string& line, std::string* response = nullptr);
  bool connect(Peer& peer);
  bool exchange(Peer& peer, const std::string& bytes, std::string* response);
  void close_peer(Peer& peer);

  const Settings settings_;
  const std::function<Topology()> topology_;
  const std::shared_ptr<spdlog::logger> log_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> commands_;                       // guarded by mu_
  std::optional<std::vector<std::string>> new_addresses_;  // guarded by mu_
  bool stop_ = false;                                      // guarded by mu_
  std::vector<std::string> addresses_;                     // guarded by mu_
  // Lookupd HTTP endpoints of identified peers ("host", port), for channels_of.
  std::vector<std::pair<std::string, int>> http_endpoints_;  // guarded by mu_

  std::vector<Peer> peers_;  // the loop thread only
  std::thread thread_;
};

}  // namespace nsq::nsqd
