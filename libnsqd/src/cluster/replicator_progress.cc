// Delivery progress in the Replicator: the handover to a new leader's
// channels, and each replica's saved progress and log retention.
#include "cluster/replicator.h"
#include "diskqueue/atomic_file.h"

namespace nsq::nsqd::cluster {

Replicator::Handover Replicator::handover(const std::string& topic) const {
  std::lock_guard lock(mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) return {};
  const Topic& t = it->second;
  return Handover{t.log, t.ledger, t.log->end(), t.ledger->progress()};
}

void Replicator::delivering(const std::string& topic, std::uint32_t epoch) {
  Later later;
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(topic);
    if (it == topics_.end() || it->second.role.epoch != epoch) return;
    it->second.delivering_epoch = epoch;
    // Publishes that waited for the takeover.
    for (auto a = admitting_.begin(); a != admitting_.end();) {
      if (a->topic != topic) {
        ++a;
        continue;
      }
      later.calls.push_back(
          [done = std::move(a->done), adm = admission_locked(topic)] { done(adm); });
      a = admitting_.erase(a);
    }
  }
  later.run();
}

bool Replicator::leads(const std::string& topic, std::uint32_t epoch) const {
  std::lock_guard lock(mu_);
  auto it = topics_.find(topic);
  return it != topics_.end() && it->second.role.leader && it->second.role.epoch == epoch;
}

// On a thread of its own: a save (a write, an fsync and a rename per topic)
// must not delay the fsyncs of the logs that publishes wait for.
void Replicator::save_loop() {
  std::unique_lock lock(mu_);
  while (!stop_cv_.wait_for(lock, settings_.save_interval, [&] { return stopping_; })) {
    lock.unlock();
    save_progress();
    lock.lock();
  }
}

// Each replica keeps the last delivery progress it had in
// <topic>.replica.state, every save_interval, and deletes the log segments
// wholly below it (docs/replication.md, "Retention").
void Replicator::save_progress() {
  struct Dirty {
    std::string topic;
    std::uint64_t version;
    TopicProgress progress;
    std::shared_ptr<ReplicaLog> log;
    std::shared_ptr<Files> files;
  };
  std::vector<Dirty> dirty;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, t] : topics_) {
      const std::uint64_t version = t.ledger->version();
      if (version != t.saved_version) {
        dirty.push_back({name, version, t.ledger->progress(), t.log, t.files});
      }
    }
  }
  for (auto& d : dirty) {
    {
      std::lock_guard files(d.files->mu);
      if (d.files->removed) continue;  // deleted meanwhile: no state comes back
      const auto path = state_path(settings_.data_dir, d.topic);
      if (auto ec = diskqueue::write_file_atomic(path, encode(d.progress))) {
        log_->error("TOPIC({}): cannot write {} - {}", d.topic, path.string(), ec.message());
        continue;
      }
      // Only below what is saved: a restart takes over from the saved
      // progress, and must find every record it names as owed.
      if (auto ec = d.log->trim(d.progress.low_water())) {
        log_->error("TOPIC({}): cannot delete delivered replica log segments - {}", d.topic,
                    ec.message());
      }
    }
    std::lock_guard lock(mu_);
    if (auto it = topics_.find(d.topic); it != topics_.end()) it->second.saved_version = d.version;
  }
}

}  // namespace nsq::nsqd::cluster
