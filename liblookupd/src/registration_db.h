#pragma once

#include <chrono>
#include <compare>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// nsqlookupd's in-memory registry (lookupd.md §2): which nsqd ("peer") has
// which topic and channel. Time is always a parameter, so tests need no
// sleeps.
namespace nsq::lookupd {

using Time = std::chrono::system_clock::time_point;
using Duration = std::chrono::nanoseconds;

// (category, key, subkey): ("client", "", ""), ("topic", t, ""),
// ("channel", t, c). In queries "*" as key or subkey matches anything.
struct Registration {
  std::string category;
  std::string key;
  std::string subkey;

  auto operator<=>(const Registration&) const = default;
  bool operator==(const Registration&) const = default;
};

inline constexpr std::string_view kClient = "client";
inline constexpr std::string_view kTopic = "topic";
inline constexpr std::string_view kChannel = "channel";

// What a peer told us in IDENTIFY. Immutable once registered; `id` is the
// remote address of its TCP connection.
struct PeerInfo {
  std::string id;
  std::string remote_address;
  std::string hostname;
  std::string broadcast_address;
  std::int64_t tcp_port = 0;
  std::int64_t http_port = 0;
  std::string version;
  // Go master: where an nsqd runs (topology-aware consumption); shown when set.
  std::string topology_zone;
  std::string topology_region;
};

// One connected peer: its IDENTIFY data and last-update time, shared by
// all its entries (Go's *PeerInfo). Created by the connection at IDENTIFY.
class Peer {
 public:
  Peer(PeerInfo info, Time now) : info_(std::move(info)), last_update_(now) {}
  const PeerInfo& info() const { return info_; }

 private:
  friend class RegistrationDb;
  const PeerInfo info_;
  Time last_update_;  // guarded by the RegistrationDb's mutex
};

// A peer as seen in one registration, copied out of the DB.
struct Producer {
  std::shared_ptr<const PeerInfo> peer;
  Time last_update{};  // shared by all registrations of the peer (IDENTIFY, PING)
  bool tombstoned = false;
  Time tombstoned_at{};

  // Active: heard from within `inactive_timeout`.
  bool is_active(Time now, Duration inactive_timeout) const {
    return now - last_update <= inactive_timeout;
  }
  // Hidden from /lookup: tombstoned less than `lifetime` ago.
  bool is_tombstoned(Time now, Duration lifetime) const {
    return tombstoned && now - tombstoned_at < lifetime;
  }
};

struct RemoveResult {
  bool removed = false;  // the peer was in the registration
  std::size_t left = 0;  // producers left in it
};

// Thread-safe: every member takes mutex_, which guards the whole map and the
// peers' last-update times; nothing is held across calls, so a sequence of
// calls is not atomic (as in Go nsqlookupd); remove_peer is one call.
class RegistrationDb {
 public:
  // Adds the key with no producers if it is missing. True if it was added.
  bool add_registration(const Registration& r);
  // Deletes the key and its producers.
  void remove_registration(const Registration& r);
  // Adds the peer to the key (creating it). False if the peer was already
  // there: its entry, tombstone included, is kept.
  bool add_producer(const Registration& r, std::shared_ptr<Peer> peer);
  RemoveResult remove_producer(const Registration& r, std::string_view peer_id);
  // Removes the peer from every key at once (its connection closed), so no
  // query sees it gone from /nodes but still a producer of a topic. Returns
  // the keys it was in, sorted. (Go removes them one call at a time.)
  std::vector<Registration> remove_peer(std::string_view peer_id);

  // Keys matching (category, key, subkey) with "*" wildcards, sorted.
  std::vector<Registration> find_registrations(std::string_view category, std::string_view key,
                                               std::string_view subkey) const;
  // Producers of the matching keys, each peer once, sorted by peer id.
  std::vector<Producer> find_producers(std::string_view category, std::string_view key,
                                       std::string_view subkey) const;
  // Every key the peer is in, sorted.
  std::vector<Registration> lookup_registrations(std::string_view peer_id) const;

  // Sets the peer's last-update time (PING). Returns the previous one.
  Time touch(Peer& peer, Time now);
  // Tombstones every producer of (topic, `topic`, "") whose
  // "<broadcast_address>:<http_port>" is `node`. Returns how many.
  std::size_t tombstone(std::string_view topic, std::string_view node, Time now);

  // The whole map, for /debug.
  std::map<Registration, std::vector<Producer>> snapshot() const;

 private:
  struct Entry {
    std::shared_ptr<Peer> peer;
    bool tombstoned = false;
    Time tombstoned_at{};
  };
  using Producers = std::map<std::string, Entry, std::less<>>;

  Producer view(const Entry& e) const;  // requires mutex_

  mutable std::mutex mu_;
  std::map<Registration, Producers> registrations_;  // guarded by mu_
};

// The queries of the HTTP API (lookupd.md §3), on top of the DB.
struct LookupResult {
  std::vector<std::string> channels;
  std::vector<std::shared_ptr<const PeerInfo>> producers;
};

struct NodeInfo {
  std::shared_ptr<const PeerInfo> peer;
  std::vector<std::string> topics;
  std::vector<bool> tombstones;  // per topic
};

// nullopt: no topic key (404 TOPIC_NOT_FOUND).
std::optional<LookupResult> lookup(const RegistrationDb& db, std::string_view topic, Time now,
                                   Duration inactive_timeout, Duration tombstone_lifetime);
std::vector<std::string> topics(const RegistrationDb& db);
std::vector<std::string> channels(const RegistrationDb& db, std::string_view topic);
std::vector<NodeInfo> nodes(const RegistrationDb& db, Time now, Duration inactive_timeout,
                            Duration tombstone_lifetime);

}  // namespace nsq::lookupd
