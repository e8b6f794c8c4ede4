#include "lookup/lookup_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include <algorithm>
#include <future>
#include <set>

#include "lookup/lookupd_parse.h"
#include "nsq/endian.h"
#include "nsq/http/client.h"
#include "nsq/json/writer.h"

namespace nsq::nsqd {
namespace {

constexpr int kTimeoutMs = 1000;  // lookupd dial/read/write deadline (NSQ's constant)

std::string join_topic_channel(const std::string& topic, const std::string& channel) {
  return channel.empty() ? topic : topic + " " + channel;
}

bool wait_fd(int fd, short events) {
  pollfd p{fd, events, 0};
  for (;;) {
    int n = ::poll(&p, 1, kTimeoutMs);
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    if (!wait_fd(fd, POLLOUT)) return false;
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool read_exact(int fd, char* out, std::size_t size) {
  while (size > 0) {
    if (!wait_fd(fd, POLLIN)) return false;
    ssize_t n = ::recv(fd, out, size, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    if (n == 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::pair<std::string, std::string> split_host_port(const std::string& address) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos) return {address, ""};
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return {host, address.substr(colon + 1)};
}

}  // namespace

LookupClient::LookupClient(Settings settings, std::function<Topology()> topology,
                           std::shared_ptr<spdlog::logger> log)
    : settings_(std::move(settings)),
      topology_(std::move(topology)),
      log_(std::move(log)),
      addresses_(settings_.addresses) {}

LookupClient::~LookupClient() { stop(); }

void LookupClient::start() {
  thread_ = std::thread([this] { run(); });
}

void LookupClient::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& p : peers_) close_peer(p);
}

bool LookupClient::configured() const {
  std::lock_guard lock(mu_);
  return !addresses_.empty();
}

void LookupClient::registration_changed(bool added, const std::string& topic,
                                        const std::string& channel) {
  {
    std::lock_guard lock(mu_);
    commands_.push_back((added ? "REGISTER " : "UNREGISTER ") + join_topic_channel(topic, channel));
  }
  cv_.notify_all();
}

void LookupClient::set_addresses(std::vector<std::string> addresses) {
  {
    std::lock_guard lock(mu_);
    addresses_ = addresses;
    new_addresses_ = std::move(addresses);
  }
  cv_.notify_all();
}

std::optional<std::vector<std::string>> LookupClient::channels_of(const std::string& topic) {
  std::vector<std::pair<std::string, int>> endpoints;
  {
    std::lock_guard lock(mu_);
    if (addresses_.empty()) return std::vector<std::string>{};
    endpoints = http_endpoints_;
  }
  if (endpoints.empty()) {
    log_->error("no lookupd has answered IDENTIFY yet: cannot look up the channels of topic {}",
                topic);
    return std::nullopt;
  }
  std::vector<std::future<std::vector<std::string>>> queries;
  for (const auto& endpoint : endpoints) {
    queries.push_back(std::async(std::launch::async, [this, endpoint, &topic] {
      const auto& [host, port] = endpoint;  // (clang 14 cannot capture a binding)
      std::vector<std::string> names;
      auto r = http::get(host, static_cast<std::uint16_t>(port), "/channels?topic=" + topic,
                         settings_.http_connect_timeout, settings_.http_request_timeout);
      if (!r || r->status != 200) {
        log_->error("LOOKUPD({}:{}): channels of {} - {}", host, port, topic,
                    r ? "HTTP " + std::to_string(r->status) : r.error());
        return names;
      }
      return parse_lookupd_channels(r->body);
    }));
  }
  std::set<std::string> all;
  for (auto& q : queries) {
    for (auto& name : q.get()) all.insert(std::move(name));
  }
  return std::vector<std::string>(all.begin(), all.end());
}

void LookupClient::run() {
  {
    std::lock_guard lock(mu_);
    for (const auto& a : addresses_) peers_.push_back(Peer{a, -1, {}, 0});
  }
  // Connect to every lookupd right away (a PING runs the connect sequence).
  for (auto& p : peers_) command(p, "PING");
  auto next_ping = std::chrono::steady_clock::now() + settings_.ping_interval;
  for (;;) {
    std::deque<std::string> commands;
    std::optional<std::vector<std::string>> addresses;
    bool ping = false;
    {
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, next_ping,
                     [&] { return stop_ || !commands_.empty() || new_addresses_.has_value(); });
      if (stop_) return;
      commands.swap(commands_);
      addresses.swap(new_addresses_);
      if (std::chrono::steady_clock::now() >= next_ping) {
        ping = true;
        next_ping = std::chrono::steady_clock::now() + settings_.ping_interval;
      }
    }
    if (addresses) {
      std::vector<Peer> kept;
      for (auto& p : peers_) {
        if (std::find(addresses->begin(), addresses->end(), p.address) != addresses->end()) {
          kept.push_back(std::move(p));
        } else {
          log_->info("LOOKUP: removing peer {}", p.address);
          close_peer(p);
        }
      }
      peers_ = std::move(kept);
      for (const auto& a : *addresses) {
        bool known = std::any_of(peers_.begin(), peers_.end(),
                                 [&](const Peer& p) { return p.address == a; });
        if (!known) {
          log_->info("LOOKUP: adding peer {}", a);
          peers_.push_back(Peer{a, -1, {}, 0});
          command(peers_.back(), "PING");
        }
      }
    }
    for (const auto& c : commands) {
      for (auto& p : peers_) command(p, c);
    }
    if (ping) {
      for (auto& p : peers_) command(p, "PING");
    }
  }
}

bool LookupClient::command(Peer& peer, const std::string& line, std::string* response) {
  bool was_connected = peer.fd >= 0;
  if (!was_connected && !connect(peer)) return false;
  std::string resp;
  if (!exchange(peer, line + "\n", &resp)) {
    log_->error("LOOKUPD({}): {} failed - connection lost", peer.address, line);
    close_peer(peer);
    // A lookupd that restarted since the last command: reconnect at once
    // rather than at the next PING (Go nsqd waits for it).
    if (!was_connected || !connect(peer) || !exchange(peer, line + "\n", &resp)) {
      close_peer(peer);
      return false;
    }
  }
  if (resp.starts_with("E_")) log_->error("LOOKUPD({}): {} - {}", peer.address, line, resp);
  if (response) *response = std::move(resp);
  return true;
}

bool LookupClient::connect(Peer& peer) {
  auto [host, port] = split_host_port(peer.address);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    log_->error("LOOKUPD({}): cannot resolve address", peer.address);
    return false;
  }
  int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    found->ai_protocol);
  bool ok = fd >= 0;
  if (ok && ::connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    ok = errno == EINPROGRESS && wait_fd(fd, POLLOUT);
    if (ok) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      ok = err == 0;
    }
  }
  ::freeaddrinfo(found);
  if (!ok) {
    if (fd >= 0) ::close(fd);
    log_->error("LOOKUPD({}): error connecting", peer.address);
    return false;
  }
  peer.fd = fd;
  log_->info("LOOKUP connecting to {}", peer.address);

  const Identity& id = settings_.identity;
  std::string json = "{\"broadcast_address\":" + json::quote(id.broadcast_address) +
                     ",\"hostname\":" + json::quote(id.hostname) +
                     ",\"http_port\":" + std::to_string(id.http_port) +
                     ",\"tcp_port\":" + std::to_string(id.tcp_port) + ",\"version\":\"1.3.0\"";
  if (!id.topology_zone.empty()) json += ",\"topology_zone\":" + json::quote(id.topology_zone);
  if (!id.topology_region.empty()) {
    json += ",\"topology_region\":" + json::quote(id.topology_region);
  }
  json += '}';
  std::string identify = "  V1IDENTIFY\n";
  append_u32be(identify, static_cast<std::uint32_t>(json.size()));
  identify += json;
  std::string resp;
  if (!exchange(peer, identify, &resp)) {
    log_->error("LOOKUPD({}): IDENTIFY failed - connection lost", peer.address);
    close_peer(peer);
    return false;
  }
  auto info = parse_lookupd_identify(resp);
  if (!info) {
    log_->error("LOOKUPD({}): IDENTIFY answered {}", peer.address, resp);
    close_peer(peer);
    return false;
  }
  peer.lookupd_broadcast_address = std::move(info->broadcast_address);
  peer.lookupd_http_port = info->http_port;
  log_->info("LOOKUPD({}): peer info {}", peer.address, resp);
  {
    std::lock_guard lock(mu_);
    if (!peer.lookupd_broadcast_address.empty() && peer.lookupd_http_port > 0) {
      std::pair<std::string, int> endpoint{peer.lookupd_broadcast_address, peer.lookupd_http_port};
      if (std::find(http_endpoints_.begin(), http_endpoints_.end(), endpoint) ==
          http_endpoints_.end()) {
        http_endpoints_.push_back(endpoint);
      }
    }
  }

  // Register everything this nsqd has.
  for (const auto& [topic, channels] : topology_()) {
    std::vector<std::string> lines;
    if (channels.empty()) {
      lines.push_back("REGISTER " + topic);
    } else {
      for (const auto& c : channels) lines.push_back("REGISTER " + topic + " " + c);
    }
    for (const auto& line : lines) {
      if (!exchange(peer, line + "\n", &resp)) {
        close_peer(peer);
        return false;
      }
    }
  }
  return true;
}

// Writes `bytes` and reads one [int32 size][data] response.
bool LookupClient::exchange(Peer& peer, const std::string& bytes, std::string* response) {
  if (!write_all(peer.fd, bytes)) return false;
  char header[4];
  if (!read_exact(peer.fd, header, 4)) return false;
  std::int32_t size = get_i32be(header);
  if (size < 0 || size > settings_.max_body_size) return false;
  std::string data(static_cast<std::size_t>(size), '\0');
  if (size > 0 && !read_exact(peer.fd, data.data(), data.size())) return false;
  if (response) *response = std::move(data);
  return true;
}

void LookupClient::close_peer(Peer& peer) {
  if (peer.fd >= 0) ::close(peer.fd);
  peer.fd = -1;
  std::lock_guard lock(mu_);
  std::pair<std::string, int> endpoint{peer.lookupd_broadcast_address, peer.lookupd_http_port};
  std::erase(http_endpoints_, endpoint);
}

}  // namespace nsq::nsqd
