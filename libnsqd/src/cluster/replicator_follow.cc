// The follower side of the Replicator: what a Fetcher asks for, what it
// brings back written into the topic's log, and the fsyncs of those logs.
#include "cluster/replicator.h"

#include <algorithm>

#include "nsq/endian.h"

namespace nsq::nsqd::cluster {
namespace {

// The epoch of the record at the start of `records` (log_record.h).
std::uint32_t record_epoch(std::string_view records) { return get_u32be(records.data() + 8); }

}  // namespace

std::vector<wire::FetchTopic> Replicator::followed(const std::string& leader_id) const {
  std::vector<wire::FetchTopic> out;
  std::lock_guard lock(mu_);
  for (const auto& [name, t] : topics_) {
    if (t.role.leader || t.role.leader_id != leader_id) continue;
    const std::uint64_t end = t.log->end();
    out.push_back(
        {name, t.role.epoch, t.log->last_epoch(), end, std::min(t.log->durable_end(), end)});
  }
  return out;
}

bool Replicator::absorb(const std::string& leader_id, const wire::FetchAnswer& answer) {
  std::shared_ptr<ReplicaLog> log;
  std::shared_ptr<std::mutex> writer;
  std::unique_lock<std::mutex> writing;
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(answer.topic);
    if (it == topics_.end() || it->second.role.leader || it->second.role.leader_id != leader_id) {
      return true;
    }
    log = it->second.log;
    // Held until written: this node cannot start leading the topic (and
    // appending to its log) in between.
    writer = it->second.follow_writer;
    writing = std::unique_lock(*writer);
    if (!answer.progress.empty()) {
      auto progress = decode_progress(answer.progress);
      if (progress) {
        it->second.ledger->replace(std::move(*progress));
      } else {
        log_->error("TOPIC({}): leader {} sent delivery progress that does not decode - {}",
                    answer.topic, leader_id, progress.error());
      }
    }
  }
  // Only this fetcher writes a followed topic's log: mu_ is not held while
  // it writes and fsyncs.
  if (answer.status == wire::FetchStatus::truncate) {
    log_->warn("TOPIC({}): truncating the replica log from {} to {} (leader {})", answer.topic,
               log->end(), answer.value, leader_id);
    if (auto ec = log->truncate(std::min(answer.value, log->end()))) {
      log_->error("TOPIC({}): truncate failed - {}", answer.topic, ec.message());
      return false;
    }
    return true;
  }
  if (answer.status == wire::FetchStatus::restart) {
    log_->info("TOPIC({}): the leader {} keeps its log from {} on: starting there", answer.topic,
               leader_id, answer.value);
    if (auto ec = log->restart_at(answer.value, answer.epoch)) {
      log_->error("TOPIC({}): cannot restart the replica log - {}", answer.topic, ec.message());
      return false;
    }
    return true;
  }
  if (answer.status != wire::FetchStatus::ok || answer.records.empty()) return true;
  // Whole records in epoch order: each new epoch is recorded where it begins.
  const ScannedRecords scanned = scan_records(answer.records, settings_.max_record);
  if (scanned.corrupt || scanned.consumed != answer.records.size()) {
    log_->error("TOPIC({}): leader {} sent records that do not check", answer.topic, leader_id);
    return false;
  }
  std::string_view rest = answer.records;
  while (!rest.empty()) {
    const std::uint32_t epoch = record_epoch(rest);
    std::size_t run = 0;
    while (run < rest.size() && record_epoch(rest.substr(run)) == epoch) {
      run += get_u32be(rest.data() + run) + 8;
    }
    if (epoch > log->last_epoch()) {
      if (auto ec = log->begin_epoch(epoch)) {
        log_->error("TOPIC({}): cannot record epoch {} - {}", answer.topic, epoch, ec.message());
        return false;
      }
    }
    if (auto end = log->append(rest.substr(0, run)); !end) {
      log_->error("TOPIC({}): cannot append to the replica log - {}", answer.topic,
                  end.error().message());
      return false;
    }
    rest.remove_prefix(run);
  }
  return true;
}

bool Replicator::sync_followed(const std::string& leader_id) {
  std::vector<std::pair<std::string, std::shared_ptr<ReplicaLog>>> logs;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, t] : topics_) {
      if (!t.role.leader && t.role.leader_id == leader_id) logs.emplace_back(name, t.log);
    }
  }
  bool ok = true;
  for (const auto& [name, log] : logs) {
    if (auto ec = log->sync()) {
      log_->error("TOPIC({}): cannot fsync the replica log - {}", name, ec.message());
      ok = false;
    }
  }
  return ok;
}

bool Replicator::cut_followed_to_durable(const std::string& leader_id) {
  struct Followed {
    std::string name;
    std::shared_ptr<ReplicaLog> log;
    std::shared_ptr<std::mutex> writer;
  };
  std::vector<Followed> followed;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, t] : topics_) {
      if (!t.role.leader && t.role.leader_id == leader_id) {
        followed.push_back({name, t.log, t.follow_writer});
      }
    }
  }
  bool ok = true;
  for (const auto& f : followed) {
    // As absorb(): this node cannot start leading the topic meanwhile.
    std::lock_guard writing(*f.writer);
    const std::uint64_t durable = f.log->durable_end();
    if (durable == f.log->end()) continue;
    if (auto ec = f.log->truncate(durable)) {
      log_->error("TOPIC({}): cannot cut the replica log back to {} after a failed fsync - {}",
                  f.name, durable, ec.message());
      ok = false;
    } else {
      log_->warn("TOPIC({}): replica log cut back to {} (what was fsynced) after a failed fsync",
                 f.name, durable);
    }
  }
  return ok;
}

}  // namespace nsq::nsqd::cluster
