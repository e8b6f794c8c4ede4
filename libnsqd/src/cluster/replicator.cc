#include "cluster/replicator.h"

#include <algorithm>

#include "cluster/fetcher.h"
#include "cluster/forwarder.h"
#include "cluster/log_record.h"
#include "core/read_file.h"
#include "nsqd/errc.h"

namespace nsq::nsqd::cluster {

Replicator::Replicator(Settings settings, Hooks hooks, std::shared_ptr<spdlog::logger> log)
    : settings_(std::move(settings)), hooks_(std::move(hooks)), log_(std::move(log)) {}

Replicator::~Replicator() { stop(); }

void Replicator::start() {
  thread_ = std::thread([this] { run(); });
  saver_ = std::thread([this] { save_loop(); });
}

void Replicator::stop() {
  std::map<std::string, std::unique_ptr<Fetcher>> fetchers;
  std::vector<std::unique_ptr<Fetcher>> retiring;
  Later later;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    fetchers.swap(fetchers_);
    retiring.swap(retiring_);
    for (auto& [name, t] : topics_)
      lose_leadership_locked(t, make_error_code(errc::exiting), later);
    for (auto& h : held_) {
      later.calls.push_back([reply = std::move(h.reply)] { reply(503, "exiting"); });
    }
    held_.clear();
    for (auto& a : admitting_) {
      later.calls.push_back([done = std::move(a.done)] { done(Admission{0, "exiting", {}}); });
    }
    admitting_.clear();
  }
  wake_.notify_all();
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (saver_.joinable()) saver_.join();
  later.run();
  save_progress();   // what a restart of this node takes over from
  fetchers.clear();  // joins their threads, which call back into this object
  retiring.clear();
}

std::size_t Replicator::insync_needed(const Topic& t) const {
  return std::min<std::size_t>(static_cast<std::size_t>(settings_.min_insync),
                               std::max<std::size_t>(t.role.replicas.size(), 1));
}

Replicator::Topic* Replicator::open_topic_locked(const std::string& name) {
  auto it = topics_.find(name);
  if (it != topics_.end()) return &it->second;
  auto opened =
      ReplicaLog::open({settings_.data_dir, name, settings_.segment_bytes, settings_.max_record});
  if (!opened) {
    log_->error("TOPIC({}): cannot open its replica log in {} - {}", name,
                settings_.data_dir.string(), opened.error().message());
    return nullptr;
  }
  if (!opened->repaired.empty()) {
    log_->warn("TOPIC({}): replica log repaired: {}", name, opened->repaired);
  }
  Topic& t = topics_[name];
  t.log = std::move(opened->log);
  // The delivery progress this node last had; without it, a takeover
  // delivers the whole log again (at least once).
  TopicProgress progress;
  const auto saved = state_path(settings_.data_dir, name);
  auto state = read_file_if_exists(saved);
  if (!state) {
    log_->error("TOPIC({}): cannot read {} - {}", name, saved.string(), state.error());
  } else if (*state) {
    auto decoded = decode_progress(**state);
    if (decoded) {
      progress = std::move(*decoded);
    } else {
      log_->error("TOPIC({}): {} - {}", name, saved.string(), decoded.error());
    }
  }
  t.ledger = std::make_shared<Ledger>(0, std::move(progress));
  t.saved_version = t.ledger->version();
  return &t;
}

void Replicator::lead_locked(Topic& t, Later& later) {
  // A fetcher still writing what the former leader sent finishes first.
  std::lock_guard writing(*t.follow_writer);
  if (auto ec = t.log->begin_epoch(t.role.epoch)) {
    log_->error("TOPIC({}): cannot begin epoch {} - {}", t.role.topic, t.role.epoch, ec.message());
    return;
  }
  lose_leadership_locked(t, make_error_code(errc::not_leader), later);
  t.led_epoch = t.role.epoch;
  t.led_from = t.log->end();
  // Progress a former leader sent about records beyond this log's end
  // (never fetched, or truncated here) would name offsets that new records
  // take with other boundaries: a cursor stopped inside a record for ever.
  if (t.ledger->clip(t.led_from)) {
    log_->warn("TOPIC({}): delivery progress beyond offset {} (the end of this log) dropped",
               t.role.topic, t.led_from);
  }
  t.commit = 0;
  t.followers.clear();
  // What it wrote as a follower may still wait for its fsync.
  t.unsynced = true;
  work_ = true;
  // Every follower gets a lag period to show up before it counts as lagging.
  const auto now = Clock::now();
  for (const auto& r : t.role.replicas) {
    if (r != settings_.node_id) t.followers[r].caught_up = now;
  }
  log_->info("TOPIC({}): leading at epoch {} from offset {}", t.role.topic, t.role.epoch,
             t.log->end());
}

void Replicator::lose_leadership_locked(Topic& t, std::error_code why, Later& later) {
  for (auto& w : t.waiters) fail_waiter_locked(t, w, why, later);
  t.waiters.clear();
  t.led_epoch = 0;
  t.delivering_epoch = 0;
  t.last_records.clear();
}

void Replicator::fail_waiter_locked(Topic& t, Waiter& w, std::error_code why, Later& later) {
  // Its producer hears of the failure and may publish again: no channel here
  // is to deliver these records.
  if (t.ledger) t.ledger->skip(w.begin, w.end);
  later.calls.push_back([done = std::move(w.done), why] { done(Replicated{why, {}}); });
}

void Replicator::apply(const std::vector<Role>& roles) {
  Later later;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    std::set<std::string> listed;
    std::set<std::string> leaders;  // ids of the leaders this node follows
    for (const Role& role : roles) {
      listed.insert(role.topic);
      Topic* t = open_topic_locked(role.topic);
      if (!t) continue;
      // An in-sync change asked at an older epoch was dropped by the
      // coordinator (not this node's to change any more): ask anew.
      const bool isr_changed = t->role.isr != role.isr || t->role.epoch != role.epoch;
      t->role = role;
      t->ledger->set_id_base(role.id_base);
      if (isr_changed) t->isr_change_asked.reset();
      if (role.leader && t->led_epoch != role.epoch) lead_locked(*t, later);
      if (!role.leader && t->led_epoch != 0) {
        lose_leadership_locked(*t, make_error_code(errc::not_leader), later);
      }
      if (!role.leader && !role.leader_id.empty()) leaders.insert(role.leader_id);
      advance_commit_locked(*t, later);
    }
    for (auto it = topics_.begin(); it != topics_.end();) {
      if (listed.count(it->first)) {
        ++it;
        continue;
      }
      // Deleted from the cluster: its files go before a topic of the same
      // name can open them again (under mu_).
      lose_leadership_locked(it->second, make_error_code(errc::not_leader), later);
      {
        std::lock_guard files(it->second.files->mu);
        it->second.files->removed = true;
        if (auto ec = remove_replica_files(settings_.data_dir, it->first)) {
          log_->error("TOPIC({}): cannot delete its replica log - {}", it->first, ec.message());
        } else {
          log_->info("TOPIC({}): replica log deleted", it->first);
        }
      }
      it = topics_.erase(it);
    }
    for (auto it = fetchers_.begin(); it != fetchers_.end();) {
      if (leaders.count(it->first)) {
        ++it;
      } else {
        it->second->request_stop();
        retiring_.push_back(std::move(it->second));
        it = fetchers_.erase(it);
      }
    }
    for (const std::string& id : leaders) {
      if (fetchers_.count(id)) continue;
      Fetcher::Settings fs;
      fs.node_id = settings_.node_id;
      fs.leader_id = id;
      fs.connect_timeout = settings_.connect_timeout;
      fs.max_bytes =
          static_cast<std::uint32_t>(std::max<std::size_t>(settings_.max_record, 1 << 20));
      fetchers_.emplace(id, std::make_unique<Fetcher>(*this, std::move(fs), log_));
    }
    // Publishes that waited for a placement.
    for (auto it = admitting_.begin(); it != admitting_.end();) {
      auto t = topics_.find(it->topic);
      if (t == topics_.end() || taking_over(t->second)) {
        ++it;
        continue;
      }
      later.calls.push_back(
          [done = std::move(it->done), a = admission_locked(it->topic)] { done(a); });
      it = admitting_.erase(it);
    }
  }
  later.run();
}

Replication::Admission Replicator::admission_locked(const std::string& name) const {
  auto refuse = [](std::string why, std::string leader_http = {}) {
    return Admission{0, std::move(why), std::move(leader_http)};
  };
  const auto it = topics_.find(name);
  if (it == topics_.end()) return refuse("topic " + name + " has no leader yet");
  const Topic& t = it->second;
  if (!t.role.leader) {
    if (t.role.leader_id.empty()) return refuse("not the leader of " + name + " (none yet)");
    return refuse("not the leader of " + name + " (" + t.role.leader_id + " is)",
                  t.role.leader_http);
  }
  if (t.led_epoch != t.role.epoch || t.delivering_epoch != t.role.epoch) {
    return refuse("leadership starting");
  }
  if (t.role.isr.size() < insync_needed(t)) {
    return refuse(make_error_code(errc::not_enough_replicas).message());
  }
  if (hooks_.member && !hooks_.member()) return refuse("not a cluster member (lease lapsed)");
  return Admission{t.role.epoch, {}, {}};
}

std::optional<Replication::Admission> Replicator::admit(const std::string& topic,
                                                        std::function<void(Admission)> done) {
  std::lock_guard lock(mu_);
  if (stopping_) return Admission{0, "exiting", {}};
  if (auto it = topics_.find(topic); it == topics_.end() || taking_over(it->second)) {
    // Just created (the coordinator places it within a poll), or its
    // channels are being filled for this node's new leadership.
    admitting_.push_back({topic, Clock::now() + settings_.lag_max, std::move(done)});
    return std::nullopt;
  }
  return admission_locked(topic);
}

void Replicator::replicate(const std::string& topic, std::uint32_t epoch,
                           std::span<const std::string_view> bodies, std::int64_t defer_until_ms,
                           std::function<void(Replicated)> done) {
  const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  Later later;
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(topic);
    std::error_code refused;
    if (stopping_) {
      refused = make_error_code(errc::exiting);
    } else if (it == topics_.end() || !it->second.role.leader || it->second.led_epoch != epoch) {
      refused = make_error_code(errc::not_leader);
    } else if (it->second.role.isr.size() < insync_needed(it->second)) {
      refused = make_error_code(errc::not_enough_replicas);
    }
    if (!refused) {
      Topic& t = it->second;
      // A message's id is its record's offset (docs/replication.md,
      // "Message ids"), known only here, under the lock that orders appends.
      const std::uint64_t begin = t.log->end();
      std::uint64_t offset = begin;
      std::vector<MessageRef> messages;
      messages.reserve(bodies.size());
      std::size_t bytes = 0;
      for (std::string_view body : bodies) bytes += body.size();
      MessageBatch made(bodies.size(), bytes);
      std::string framed;
      for (std::string_view body : bodies) {
        const MessageHeader header{now_ns, 0, id_at(t.role.id_base, offset)};
        messages.push_back(made.make(header.id, header.timestamp_ns, body));
        LogRecord r{epoch, defer_until_ms, {}};
        append_message(r.message, header, body);
        append_record(framed, r);
        offset = begin + framed.size();
      }
      auto end = t.log->append(framed);
      if (!end) {
        refused = end.error();
      } else {
        t.waiters.push_back({begin, *end, Clock::now() + 2 * settings_.lag_max, std::move(messages),
                             std::move(done)});
        t.last_begin = begin;
        t.last_records = std::move(framed);
        t.unsynced = true;
        work_ = true;
        // Followers waiting for records get them now, while this node fsyncs.
        answer_held_locked(true, Clock::now(), later);
      }
    }
    if (refused) {
      later.calls.push_back([done = std::move(done), refused] { done(Replicated{refused, {}}); });
    }
  }
  wake_.notify_all();
  later.run();
}

void Replicator::advance_commit_locked(Topic& t, Later& later) {
  if (!t.role.leader || t.led_epoch != t.role.epoch) return;
  if (t.role.isr.size() < insync_needed(t)) {
    const auto why = make_error_code(errc::not_enough_replicas);
    for (auto& w : t.waiters) fail_waiter_locked(t, w, why, later);
    t.waiters.clear();
    return;
  }
  // A node whose lease lapsed may no longer be the leader etcd knows: it
  // confirms nothing (docs/replication.md, "Leadership and epochs").
  if (hooks_.member && !hooks_.member()) return;
  std::uint64_t commit = t.log->durable_end();
  for (const auto& m : t.role.isr) {
    if (m == settings_.node_id) continue;
    auto f = t.followers.find(m);
    commit = std::min(commit, f == t.followers.end() ? 0 : f->second.acked);
  }
  if (commit <= t.commit) return;
  t.commit = commit;
  std::size_t n = 0;
  while (n < t.waiters.size() && t.waiters[n].end <= commit) ++n;
  for (std::size_t i = 0; i < n; ++i) {
    later.calls.push_back([done = std::move(t.waiters[i].done),
                           messages = std::move(t.waiters[i].messages)]() mutable {
      done(Replicated{{}, std::move(messages)});
    });
  }
  t.waiters.erase(t.waiters.begin(), t.waiters.begin() + static_cast<std::ptrdiff_t>(n));
}

void Replicator::check_isr_locked(Topic& t, Clock::time_point now) {
  if (!t.role.leader || t.led_epoch != t.role.epoch || !hooks_.set_isr) return;
  // A change asked and not seen in etcd within the lag period was lost (an
  // etcd error, a compare that failed): asked again rather than waited for
  // for ever, which kept a caught-up replica out of the in-sync set.
  if (t.isr_change_asked && now - *t.isr_change_asked < settings_.lag_max) return;
  std::vector<std::string> isr = t.role.isr;
  for (const auto& [id, f] : t.followers) {
    const bool in = contains(isr, id);
    if (in && now - f.caught_up > settings_.lag_max) {
      std::erase(isr, id);
      log_->warn("TOPIC({}): {} lags (acked {} of {}): leaving the in-sync set", t.role.topic, id,
                 f.acked, t.log->end());
      break;
    }
    // Only one that asked: the lag period a new leader grants is no proof of
    // life (a dead replica would "catch up" with an empty log). It needs
    // every committed record, and all this log held when this node began
    // leading (committed by a former leader, perhaps): not the very end,
    // which under steady publishing moves between any two of its fetches.
    if (!in && f.asked && contains(t.role.replicas, id) && now - f.synced < settings_.lag_max / 2 &&
        f.acked >= std::max(t.commit, t.led_from)) {
      isr.push_back(id);
      log_->info("TOPIC({}): {} caught up: joining the in-sync set", t.role.topic, id);
      break;
    }
  }
  if (isr == t.role.isr) return;
  t.isr_change_asked = now;
  hooks_.set_isr(t.role.topic, t.role.epoch, std::move(isr));
}

std::string Replicator::forward(const std::string& leader_http, const std::string& topic,
                                const std::vector<std::string>& bodies,
                                std::chrono::milliseconds defer) {
  return forward_publish(leader_http, topic, bodies, defer, settings_.connect_timeout,
                         2 * settings_.lag_max + std::chrono::seconds(1));
}

void Replicator::run() {
  for (;;) {
    std::vector<std::pair<std::string, std::shared_ptr<ReplicaLog>>> to_sync;
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, std::chrono::milliseconds(50), [&] { return stopping_ || work_; });
      if (stopping_) return;
      work_ = false;
      for (auto& [name, t] : topics_) {
        if (!t.unsynced) continue;
        t.unsynced = false;
        to_sync.emplace_back(name, t.log);
      }
    }
    // Group commit: one fsync covers every append made before it.
    std::vector<std::string> failed;
    for (const auto& [name, log] : to_sync) {
      if (auto ec = log->sync()) {
        log_->error("TOPIC({}): cannot fsync the replica log - {}", name, ec.message());
        failed.push_back(name);
      }
    }
    Later later;
    {
      std::lock_guard lock(mu_);
      // A leader that cannot fsync commits nothing more: an in-sync
      // follower takes over (docs/replication.md, "Failures").
      for (const auto& name : failed) {
        auto it = topics_.find(name);
        if (it == topics_.end() || !hooks_.step_down) continue;
        Topic& t = it->second;
        if (!t.role.leader || t.led_epoch != t.role.epoch || t.step_down_asked == t.role.epoch) {
          continue;
        }
        t.step_down_asked = t.role.epoch;
        later.calls.push_back(
            [this, name, epoch = t.role.epoch] { hooks_.step_down(name, epoch); });
      }
      const auto now = Clock::now();
      for (auto& entry : topics_) {
        Topic& t = entry.second;
        advance_commit_locked(t, later);
        check_isr_locked(t, now);
        const auto timeout = make_error_code(errc::replication_timeout);
        std::erase_if(t.waiters, [&](Waiter& w) {
          if (w.deadline > now) return false;
          fail_waiter_locked(t, w, timeout, later);
          return true;
        });
      }
      answer_held_locked(true, now, later);
      std::erase_if(admitting_, [&](AdmitWaiter& a) {
        if (a.deadline > now) return false;
        later.calls.push_back([done = std::move(a.done), topic = a.topic] {
          done(Admission{0, "topic " + topic + " has no leader yet", {}});
        });
        return true;
      });
    }
    later.run();
    std::vector<std::unique_ptr<Fetcher>> finished;
    {
      std::lock_guard lock(mu_);
      for (auto it = retiring_.begin(); it != retiring_.end();) {
        if ((*it)->finished()) {
          finished.push_back(std::move(*it));
          it = retiring_.erase(it);
        } else {
          ++it;
        }
      }
    }
    finished.clear();  // their threads have ended: joining waits for nothing
  }
}

}  // namespace nsq::nsqd::cluster
