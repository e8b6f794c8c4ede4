#include "registration_db.h"

namespace nsq::lookupd {
namespace {

bool matches(std::string_view pattern, std::string_view value) {
  return pattern == "*" || pattern == value;
}

bool is_match(const Registration& r, std::string_view category, std::string_view key,
              std::string_view subkey) {
  return r.category == category && matches(key, r.key) && matches(subkey, r.subkey);
}

bool needs_filter(std::string_view key, std::string_view subkey) {
  return key == "*" || subkey == "*";
}

Registration make_key(std::string_view category, std::string_view key, std::string_view subkey) {
  return Registration{std::string(category), std::string(key), std::string(subkey)};
}

}  // namespace

Producer RegistrationDb::view(const Entry& e) const {
  Producer p;
  p.peer = std::shared_ptr<const PeerInfo>(e.peer, &e.peer->info());
  p.last_update = e.peer->last_update_;
  p.tombstoned = e.tombstoned;
  p.tombstoned_at = e.tombstoned_at;
  return p;
}

bool RegistrationDb::add_registration(const Registration& r) {
  std::lock_guard lock(mu_);
  return registrations_.try_emplace(r).second;
}

void RegistrationDb::remove_registration(const Registration& r) {
  std::lock_guard lock(mu_);
  registrations_.erase(r);
}

bool RegistrationDb::add_producer(const Registration& r, std::shared_ptr<Peer> peer) {
  std::lock_guard lock(mu_);
  Producers& producers = registrations_[r];
  const std::string& id = peer->info().id;
  if (producers.contains(id)) return false;
  producers.emplace(id, Entry{std::move(peer), false, Time{}});
  return true;
}

RemoveResult RegistrationDb::remove_producer(const Registration& r, std::string_view peer_id) {
  std::lock_guard lock(mu_);
  auto it = registrations_.find(r);
  if (it == registrations_.end()) return {};
  RemoveResult result;
  if (auto p = it->second.find(peer_id); p != it->second.end()) {
    it->second.erase(p);
    result.removed = true;
  }
  result.left = it->second.size();
  return result;
}

std::vector<Registration> RegistrationDb::find_registrations(std::string_view category,
                                                             std::string_view key,
                                                             std::string_view subkey) const {
  std::lock_guard lock(mu_);
  std::vector<Registration> out;
  if (!needs_filter(key, subkey)) {
    Registration k = make_key(category, key, subkey);
    if (registrations_.contains(k)) out.push_back(std::move(k));
    return out;
  }
  for (const auto& [r, producers] : registrations_) {
    if (is_match(r, category, key, subkey)) out.push_back(r);
  }
  return out;
}

std::vector<Producer> RegistrationDb::find_producers(std::string_view category,
                                                     std::string_view key,
                                                     std::string_view subkey) const {
  std::lock_guard lock(mu_);
  std::vector<Producer> out;
  if (!needs_filter(key, subkey)) {
    auto it = registrations_.find(make_key(category, key, subkey));
    if (it == registrations_.end()) return out;
    for (const auto& [id, entry] : it->second) out.push_back(view(entry));
    return out;
  }
  std::map<std::string_view, Producer> found;  // by peer id; first key wins
  for (const auto& [r, producers] : registrations_) {
    if (!is_match(r, category, key, subkey)) continue;
    for (const auto& [id, entry] : producers) {
      if (!found.contains(id)) found.emplace(id, view(entry));
    }
  }
  out.reserve(found.size());
  for (auto& [id, p] : found) out.push_back(std::move(p));
  return out;
}

std::vector<Registration> RegistrationDb::lookup_registrations(std::string_view peer_id) const {
  std::lock_guard lock(mu_);
  std::vector<Registration> out;
  for (const auto& [r, producers] : registrations_) {
    if (producers.find(peer_id) != producers.end()) out.push_back(r);
  }
  return out;
}

std::vector<Registration> RegistrationDb::remove_peer(std::string_view peer_id) {
  std::lock_guard lock(mu_);
  std::vector<Registration> out;
  for (auto& [r, producers] : registrations_) {
    if (auto p = producers.find(peer_id); p != producers.end()) {
      producers.erase(p);
      out.push_back(r);
    }
  }
  return out;
}

Time RegistrationDb::touch(Peer& peer, Time now) {
  std::lock_guard lock(mu_);
  return std::exchange(peer.last_update_, now);
}

std::size_t RegistrationDb::tombstone(std::string_view topic, std::string_view node, Time now) {
  std::lock_guard lock(mu_);
  auto it = registrations_.find(make_key(kTopic, topic, ""));
  if (it == registrations_.end()) return 0;
  std::size_t n = 0;
  for (auto& [id, entry] : it->second) {
    const PeerInfo& info = entry.peer->info();
    if (info.broadcast_address + ":" + std::to_string(info.http_port) == node) {
      entry.tombstoned = true;
      entry.tombstoned_at = now;
      ++n;
    }
  }
  return n;
}

std::map<Registration, std::vector<Producer>> RegistrationDb::snapshot() const {
  std::lock_guard lock(mu_);
  std::map<Registration, std::vector<Producer>> out;
  for (const auto& [r, producers] : registrations_) {
    auto& list = out[r];
    for (const auto& [id, entry] : producers) list.push_back(view(entry));
  }
  return out;
}

std::optional<LookupResult> lookup(const RegistrationDb& db, std::string_view topic, Time now,
                                   Duration inactive_timeout, Duration tombstone_lifetime) {
  if (db.find_registrations(kTopic, topic, "").empty()) return std::nullopt;
  LookupResult result;
  result.channels = channels(db, topic);
  for (const Producer& p : db.find_producers(kTopic, topic, "")) {
    if (!p.is_active(now, inactive_timeout) || p.is_tombstoned(now, tombstone_lifetime)) continue;
    result.producers.push_back(p.peer);
  }
  return result;
}

std::vector<std::string> topics(const RegistrationDb& db) {
  std::vector<std::string> out;
  for (auto& r : db.find_registrations(kTopic, "*", "")) out.push_back(std::move(r.key));
  return out;
}

std::vector<std::string> channels(const RegistrationDb& db, std::string_view topic) {
  std::vector<std::string> out;
  for (auto& r : db.find_registrations(kChannel, topic, "*")) out.push_back(std::move(r.subkey));
  return out;
}

std::vector<NodeInfo> nodes(const RegistrationDb& db, Time now, Duration inactive_timeout,
                            Duration tombstone_lifetime) {
  std::vector<NodeInfo> out;
  std::map<std::string, std::vector<Producer>, std::less<>> topic_producers;
  for (const Producer& p : db.find_producers(kClient, "", "")) {
    // Tombstones do not hide a node here; they are reported per topic.
    if (!p.is_active(now, inactive_timeout)) continue;
    NodeInfo node;
    node.peer = p.peer;
    for (const Registration& r : db.lookup_registrations(p.peer->id)) {
      if (r.category == kTopic) node.topics.push_back(r.key);
    }
    for (const std::string& t : node.topics) {
      auto it = topic_producers.find(t);
      if (it == topic_producers.end()) {
        it = topic_producers.emplace(t, db.find_producers(kTopic, t, "")).first;
      }
      bool tombstoned = false;
      for (const Producer& tp : it->second) {
        if (tp.peer.get() == p.peer.get()) tombstoned = tp.is_tombstoned(now, tombstone_lifetime);
      }
      node.tombstones.push_back(tombstoned);
    }
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace nsq::lookupd
