#include "cluster/coordinator.h"

#include <algorithm>
#include <chrono>

#include "nsq/id_generator.h"

namespace nsq::nsqd::cluster {
namespace {

std::string joined(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

Coordinator::Coordinator(etcd::Client client, Settings settings,
                         std::shared_ptr<spdlog::logger> log, Hooks hooks)
    : etcd_(std::move(client)),
      settings_(std::move(settings)),
      keys_{"/" + settings_.cluster_name + "/"},
      log_(std::move(log)),
      hooks_(std::move(hooks)) {}

Coordinator::~Coordinator() { stop(); }

void Coordinator::start() {
  thread_ = std::thread([this] { run(); });
}

void Coordinator::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  etcd::LeaseId lease;
  {
    std::lock_guard lock(mu_);
    lease = std::exchange(lease_, 0);
  }
  // Revoking ends this node's leaderships now rather than a TTL later.
  if (lease == 0) return;
  if (auto revoked = etcd_.lease_revoke(lease); !revoked) {
    log_->warn("CLUSTER: could not revoke lease {:x} - {}", lease, revoked.error());
  } else {
    log_->info("CLUSTER: left (lease {:x} revoked)", lease);
  }
}

void Coordinator::ensure_topic(const std::string& topic, int replicas) {
  {
    std::lock_guard lock(mu_);
    if (view_.topics.count(topic) && !to_delete_.count(topic)) return;
    to_create_.emplace(topic, replicas);
    poked_ = true;
  }
  wake_.notify_all();
}

void Coordinator::forget_topic(const std::string& topic) {
  {
    std::lock_guard lock(mu_);
    to_create_.erase(topic);
    if (!view_.topics.count(topic)) return;
    to_delete_.insert(topic);
    poked_ = true;
  }
  wake_.notify_all();
}

void Coordinator::set_isr(const std::string& topic, std::uint32_t epoch,
                          std::vector<std::string> isr) {
  {
    std::lock_guard lock(mu_);
    to_set_isr_[topic] = {epoch, std::move(isr)};
    poked_ = true;
  }
  wake_.notify_all();
}

void Coordinator::step_down(const std::string& topic, std::uint32_t epoch) {
  {
    std::lock_guard lock(mu_);
    to_step_down_[topic] = epoch;
    poked_ = true;
  }
  wake_.notify_all();
}

std::optional<TopicReplication> Coordinator::replication(const std::string& topic) const {
  std::lock_guard lock(mu_);
  const auto it = view_.topics.find(topic);
  if (it == view_.topics.end()) return std::nullopt;
  const Placement& p = it->second.placement;
  TopicReplication r;
  r.epoch = p.epoch;
  if (auto led = view_.leaders.find(topic); led != view_.leaders.end()) r.leader_id = led->second;
  r.leader = r.leader_id == settings_.node_id && p.leader == settings_.node_id;
  r.replicas = p.replicas;
  r.isr = p.isr;
  return r;
}

bool Coordinator::member() const {
  std::lock_guard lock(mu_);
  return lease_ != 0 && Clock::now() - lease_renewed_ < settings_.lease_ttl;
}

void Coordinator::run() {
  for (;;) {
    tick(Clock::now());
    std::unique_lock lock(mu_);
    wake_.wait_until(lock, std::min(next_keepalive_, next_refresh_),
                     [&] { return stopping_ || poked_; });
    if (stopping_) return;
    poked_ = false;
  }
}

void Coordinator::tick(Clock::time_point now) {
  // Polling is the watch (docs/replication.md): a tenth of the TTL adds
  // little to the TTL a failover waits for anyway, and at most a second
  // to a hand-over after a clean stop.
  next_refresh_ =
      now + std::clamp<Clock::duration>(lease_period() / 10, std::chrono::milliseconds(100),
                                        std::chrono::seconds(1));
  if (!ensure_lease(now)) return;
  if (now >= next_keepalive_) keep_alive(now);
  refresh();
}

bool Coordinator::ensure_lease(Clock::time_point now) {
  {
    std::lock_guard lock(mu_);
    if (lease_ != 0 && now - lease_renewed_ < settings_.lease_ttl) return true;
    lease_ = 0;
  }
  const auto retry = [&] {
    next_keepalive_ = now + std::chrono::seconds(1);
    next_refresh_ = next_keepalive_;
    return false;
  };
  auto lease = etcd_.lease_grant(settings_.lease_ttl);
  if (!lease) {
    warn("could not join (lease grant) - " + lease.error());
    return retry();
  }
  auto put = etcd_.put(keys_.node(settings_.node_id), encode(settings_.node), *lease);
  if (!put) {
    warn("could not join (node key) - " + put.error());
    (void)etcd_.lease_revoke(*lease);
    return retry();
  }
  {
    std::lock_guard lock(mu_);
    lease_ = *lease;
    lease_renewed_ = now;  // before the grant was sent: never later than etcd's clock
  }
  next_keepalive_ = now + lease_period() / 3;
  log_->info("CLUSTER: joined {} as {} (lease {:x}, TTL {}s)", keys_.prefix, settings_.node_id,
             *lease, settings_.lease_ttl.count());
  return true;
}

void Coordinator::keep_alive(Clock::time_point now) {
  etcd::LeaseId lease;
  {
    std::lock_guard lock(mu_);
    lease = lease_;
  }
  auto ttl = etcd_.lease_keepalive(lease);
  if (!ttl) {
    // Membership lapses by the clock if this goes on (member()).
    warn("could not renew lease - " + ttl.error());
    next_keepalive_ = now + std::chrono::seconds(1);
    return;
  }
  if (*ttl == 0) {
    log_->warn("CLUSTER: lease {:x} expired: joining again", lease);
    std::lock_guard lock(mu_);
    lease_ = 0;
    next_keepalive_ = now;
    return;
  }
  std::lock_guard lock(mu_);
  lease_renewed_ = now;
  next_keepalive_ = now + lease_period() / 3;
}

void Coordinator::refresh() {
  auto read = [&]() -> std::optional<View> {
    auto range = etcd_.range(etcd::Range{keys_.prefix, true});
    if (!range) {
      warn("could not read the cluster - " + range.error());
      return std::nullopt;
    }
    return read_view(keys_, *range);
  };
  // Taken before the read, so a placement sees every node that joined
  // before the topic was asked for.
  std::map<std::string, int> creations;
  std::set<std::string> deletions;
  {
    std::lock_guard lock(mu_);
    creations.swap(to_create_);
    deletions.swap(to_delete_);
  }
  auto view = read();
  bool changed = false;
  // Deletions first: a topic deleted and published to again is created anew.
  // What etcd did not take is asked again at the next read.
  std::set<std::string> undone;
  for (const auto& topic : deletions) {
    if (!view) {
      undone.insert(topic);
    } else if (view->topics.count(topic)) {
      if (!remove(topic)) undone.insert(topic);
      changed = true;
    }
  }
  if (changed) view = read();
  if (!undone.empty() || !view) {
    std::lock_guard lock(mu_);
    to_delete_.merge(undone);
    if (!view) to_create_.merge(creations);
  }
  if (!view) return;
  for (const auto& [topic, replicas] : creations) {
    if (view->topics.count(topic)) continue;
    create(*view, topic, replicas);
    changed = true;
  }
  for (const auto& [topic, t] : view->topics) {
    const Placement& p = t.placement;
    if (view->led(topic) || !contains(p.isr, settings_.node_id)) continue;
    elect(*view, topic);
    changed = true;
  }
  std::map<std::string, std::pair<std::uint32_t, std::vector<std::string>>> isr_changes;
  {
    std::lock_guard lock(mu_);
    isr_changes.swap(to_set_isr_);
  }
  for (auto& [topic, change] : isr_changes) {
    changed = change_isr(*view, topic, change.first, std::move(change.second)) || changed;
  }
  std::map<std::string, std::uint32_t> step_downs;
  {
    std::lock_guard lock(mu_);
    step_downs.swap(to_step_down_);
  }
  for (const auto& [topic, epoch] : step_downs) {
    changed = hand_over(*view, topic, epoch) || changed;
  }
  if (changed) view = read();
  if (!view) return;
  last_warning_.clear();
  publish(std::move(*view));
}

tl::expected<bool, std::string> Coordinator::claim(const std::string& topic, const Placement& p,
                                                   const etcd::Compare& guard) {
  etcd::LeaseId lease;
  {
    std::lock_guard lock(mu_);
    lease = lease_;
  }
  using Compare = etcd::Compare;
  using Op = etcd::Op;
  auto txn = etcd_.txn({Compare{keys_.leader(topic), Compare::Target::create_revision, 0}, guard},
                       {Op{Op::Kind::put, keys_.topic(topic), encode(p), 0, false},
                        Op{Op::Kind::put, keys_.leader(topic), settings_.node_id, lease, false}},
                       {});
  if (!txn) return tl::unexpected(txn.error());
  return txn->succeeded;
}

void Coordinator::create(const View& view, const std::string& topic, int replicas) {
  Placement p;
  p.replicas = choose_replicas(view, settings_.node_id,
                               replicas > 0 ? replicas : settings_.replication_factor);
  p.epoch = 1;
  p.leader = settings_.node_id;
  p.isr = p.replicas;  // all empty: all in sync
  // As a Go nsqd id taken now, with node and sequence 0 (nsq/id_generator.h).
  const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  p.id_base = static_cast<std::uint64_t>((now_ns >> 20) - IdGenerator::kIdEpoch) << 22;
  auto claimed =
      claim(topic, p, etcd::Compare{keys_.topic(topic), etcd::Compare::Target::create_revision, 0});
  if (!claimed) {
    warn("could not create topic " + topic + " - " + claimed.error());
    std::lock_guard lock(mu_);
    to_create_.emplace(topic, replicas);
    return;
  }
  if (*claimed) {
    log_->info("TOPIC({}): placed on {} (leader {}, epoch 1)", topic, joined(p.replicas),
               settings_.node_id);
  }
}

bool Coordinator::remove(const std::string& topic) {
  using Op = etcd::Op;
  auto txn = etcd_.txn({},
                       {Op{Op::Kind::remove, keys_.topic(topic), {}, 0, false},
                        Op{Op::Kind::remove, keys_.leader(topic), {}, 0, false}},
                       {});
  if (!txn) {
    warn("could not delete " + topic + " - " + txn.error());
    return false;
  }
  log_->info("TOPIC({}): deleted from the cluster", topic);
  return true;
}

void Coordinator::elect(const View& view, const std::string& topic) {
  const View::Topic& t = view.topics.at(topic);
  Placement p = t.placement;
  p.epoch += 1;
  p.leader = settings_.node_id;
  // Replicas that are no longer members (the former leader, whose lease
  // lapsed) leave the in-sync set now: the new leader's first commits need
  // not wait for them to be found lagging. A subset of an in-sync set holds
  // every acknowledged message too.
  std::erase_if(p.isr, [&](const std::string& id) {
    return id != settings_.node_id && !view.nodes.count(id);
  });
  auto claimed =
      claim(topic, p,
            etcd::Compare{keys_.topic(topic), etcd::Compare::Target::mod_revision, t.mod_revision});
  if (!claimed) {
    warn("could not run for leader of " + topic + " - " + claimed.error());
    return;
  }
  if (*claimed) {
    log_->info("TOPIC({}): leader at epoch {} (was {}), in sync: {}", topic, p.epoch,
               t.placement.leader, joined(p.isr));
  }
}

const View::Topic* Coordinator::led_here(const View& view, const std::string& topic,
                                         std::uint32_t epoch) const {
  const auto it = view.topics.find(topic);
  const auto led = view.leaders.find(topic);
  if (it == view.topics.end() || led == view.leaders.end() || led->second != settings_.node_id ||
      it->second.placement.leader != settings_.node_id ||
      it->second.placement.epoch != static_cast<std::int64_t>(epoch)) {
    return nullptr;
  }
  return &it->second;
}

bool Coordinator::change_isr(const View& view, const std::string& topic, std::uint32_t epoch,
                             std::vector<std::string> isr) {
  const View::Topic* t = led_here(view, topic, epoch);
  if (!t) return false;  // no longer this node's to change
  Placement p = t->placement;
  p.isr = std::move(isr);
  using Compare = etcd::Compare;
  using Op = etcd::Op;
  auto txn =
      etcd_.txn({Compare{keys_.topic(topic), Compare::Target::mod_revision, t->mod_revision}},
                {Op{Op::Kind::put, keys_.topic(topic), encode(p), 0, false}}, {});
  if (!txn) {
    warn("could not change the in-sync set of " + topic + " - " + txn.error());
    return false;
  }
  if (txn->succeeded) {
    log_->info("TOPIC({}): in-sync replicas now {} (epoch {})", topic, joined(p.isr), epoch);
  }
  return true;
}

bool Coordinator::hand_over(const View& view, const std::string& topic, std::uint32_t epoch) {
  const View::Topic* t = led_here(view, topic, epoch);
  if (!t) return false;  // no longer this node's to hand over
  Placement p = t->placement;
  std::erase(p.isr, settings_.node_id);
  if (p.isr.empty()) {
    warn("cannot hand " + topic + " over: no other replica is in sync");
    return false;
  }
  // The placement unchanged since it was read means the leader key is still
  // this node's: a new leader's claim rewrites the placement too.
  using Compare = etcd::Compare;
  using Op = etcd::Op;
  auto txn =
      etcd_.txn({Compare{keys_.topic(topic), Compare::Target::mod_revision, t->mod_revision}},
                {Op{Op::Kind::put, keys_.topic(topic), encode(p), 0, false},
                 Op{Op::Kind::remove, keys_.leader(topic), {}, 0, false}},
                {});
  if (!txn) {
    warn("could not hand " + topic + " over - " + txn.error());
    return false;
  }
  if (txn->succeeded) {
    log_->warn("TOPIC({}): no longer leading it (epoch {}): its fsyncs fail here; in sync: {}",
               topic, epoch, joined(p.isr));
  }
  return true;
}

void Coordinator::publish(View view) {
  if (view.errors != reported_errors_) {
    for (const auto& e : view.errors) log_->warn("CLUSTER: ignored {}", e);
    reported_errors_ = view.errors;
  }
  std::vector<std::string> announce;
  for (const auto& [topic, t] : view.topics) {
    if (contains(t.placement.replicas, settings_.node_id) && announced_.insert(topic).second) {
      announce.push_back(topic);
    }
  }
  std::vector<std::string> gone;
  for (auto it = announced_.begin(); it != announced_.end();) {
    if (view.topics.count(*it)) {
      ++it;
    } else {
      gone.push_back(*it);
      it = announced_.erase(it);
    }
  }
  std::vector<Role> roles = roles_of(view, settings_.node_id);
  if (!member()) {
    for (auto& r : roles) r.leader = false;  // a lapsed lease leads nothing
  }
  {
    std::lock_guard lock(mu_);
    view_ = std::move(view);
  }
  if (hooks_.on_roles) hooks_.on_roles(roles);
  if (hooks_.on_replica) {
    for (const auto& topic : announce) hooks_.on_replica(topic);
  }
  if (hooks_.on_gone) {
    for (const auto& topic : gone) hooks_.on_gone(topic);
  }
}

void Coordinator::warn(const std::string& what) {
  if (what == last_warning_) return;  // once per outage, not once per poll
  last_warning_ = what;
  log_->warn("CLUSTER: {}", what);
}

}  // namespace nsq::nsqd::cluster
