// The leader side of the Replicator: fetches from followers answered with
// the log's records and the commit point, held fetches, and each
// follower's lag for /stats.
#include "cluster/replicator.h"

#include <algorithm>

#include "cluster/log_record.h"

namespace nsq::nsqd::cluster {

std::vector<wire::FetchAnswer> Replicator::answer_locked(const wire::FetchRequest& request,
                                                         bool* any_records) {
  std::vector<wire::FetchAnswer> answers;
  const auto now = Clock::now();
  for (const auto& asked : request.topics) {
    wire::FetchAnswer& a = answers.emplace_back();
    a.topic = asked.topic;
    auto it = topics_.find(asked.topic);
    if (it == topics_.end()) {
      a.status = wire::FetchStatus::not_leader;
      continue;
    }
    Topic& t = it->second;
    a.epoch = t.role.epoch;
    if (!t.role.leader || t.led_epoch != t.role.epoch || asked.epoch != t.role.epoch) {
      a.status = wire::FetchStatus::not_leader;
      continue;
    }
    const std::uint64_t end = t.log->end();
    // KIP-101: a follower whose log ends in an older epoch keeps only what
    // that epoch wrote here.
    std::uint64_t keep = end;
    if (asked.log_epoch < t.led_epoch) keep = std::min(keep, t.log->end_of_epoch(asked.log_epoch));
    if (asked.offset > keep) {
      a.status = wire::FetchStatus::truncate;
      a.value = keep;
      continue;
    }
    if (asked.offset < t.log->start()) {
      // Trimmed: everything below start() was delivered.
      a.status = wire::FetchStatus::restart;
      a.value = t.log->start();
      a.epoch = t.log->epoch_at(a.value);
      continue;
    }
    Follower& f = t.followers[request.node];
    f.asked = true;
    // A follower's fetches and confirmations come on two connections, and
    // a held fetch is answered (so read here again) later: one carrying an
    // older durable end than a confirmation already taken must not move
    // the follower back, or a commit waits for its next request (up to a
    // progress interval, or the hold). Within an epoch its fsynced end only
    // grows (a failed fsync cuts back to it, not below); a follower whose
    // log lost this epoch's records (a new disk) is taken at its word.
    f.acked = asked.log_epoch == t.led_epoch ? std::max(f.acked, asked.durable) : asked.durable;
    // In sync: on its disk, all this log held when it last asked (as Kafka
    // judges a follower's lag, with its fsynced end for its fetch offset).
    // Not "asks from the end": one that fetches but cannot fsync would hold
    // the commit point for ever without ever lagging.
    if (f.end_at_last_request && f.acked >= *f.end_at_last_request) f.caught_up = f.synced = now;
    f.end_at_last_request = end;
    a.value = t.commit;
    if (asked.offset < end && request.max_bytes > 0 && asked.offset == t.last_begin &&
        t.last_begin + t.last_records.size() == end && t.last_records.size() <= request.max_bytes) {
      a.records = t.last_records;
      if (any_records) *any_records = true;
    } else if (asked.offset < end && request.max_bytes > 0) {
      auto records = t.log->read(asked.offset, request.max_bytes);
      if (records) {
        a.records = std::move(*records);
        if (any_records) *any_records = true;
      }
    }
  }
  return answers;
}

void Replicator::answer_held_locked(bool only_with_records, Clock::time_point now, Later& later) {
  for (auto it = held_.begin(); it != held_.end();) {
    bool has_records = false;
    // Reading without recording acks again: answer_locked is idempotent for
    // the same request, and the offsets asked have not changed.
    auto answers = answer_locked(it->request, &has_records);
    // Delivery progress that is due is news too: consumers finish messages
    // while nothing is published, and a failover redelivers what the
    // followers have not heard was finished.
    const bool progress = attach_progress_locked(it->request.node, answers, now);
    if (only_with_records && !has_records && !progress && now < it->deadline) {
      ++it;
      continue;
    }
    later.calls.push_back([reply = std::move(it->reply), body = wire::encode(answers)]() mutable {
      reply(200, std::move(body));
    });
    it = held_.erase(it);
  }
}

// The delivery progress goes with an answer about as often as
// progress_interval, when it changed since the follower last got it;
// whether it went with any.
bool Replicator::attach_progress_locked(const std::string& node,
                                        std::vector<wire::FetchAnswer>& answers,
                                        Clock::time_point now) {
  bool attached = false;
  for (auto& a : answers) {
    if (a.status != wire::FetchStatus::ok) continue;
    auto it = topics_.find(a.topic);
    if (it == topics_.end() || !it->second.role.leader) continue;
    Topic& t = it->second;
    Follower& f = t.followers[node];
    const std::uint64_t version = t.ledger->version() + 1;
    if (f.progress_sent == version || now - f.progress_at < settings_.progress_interval) continue;
    a.progress = encode(t.ledger->progress());
    f.progress_sent = version;
    f.progress_at = now;
    attached = true;
  }
  return attached;
}

void Replicator::fetch(std::string_view body, FetchReply reply) {
  auto request = wire::decode_request(body);
  if (!request) {
    reply(400, request.error());
    return;
  }
  Later later;
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      later.calls.push_back([reply = std::move(reply)] { reply(503, "exiting"); });
    } else {
      bool any_records = false;
      auto answers = answer_locked(*request, &any_records);
      // The offsets asked confirm records: publishes may be committed now.
      for (const auto& asked : request->topics) {
        if (auto it = topics_.find(asked.topic); it != topics_.end()) {
          advance_commit_locked(it->second, later);
        }
      }
      bool must_answer = any_records || request->wait_ms == 0 || request->max_bytes == 0;
      for (const auto& a : answers) must_answer = must_answer || a.status != wire::FetchStatus::ok;
      if (must_answer) {
        // A confirmation's answer is not read: the progress waits for a fetch.
        if (request->max_bytes > 0) attach_progress_locked(request->node, answers, Clock::now());
        later.calls.push_back([reply = std::move(reply), body = wire::encode(answers)]() mutable {
          reply(200, std::move(body));
        });
      } else {
        const auto wait =
            std::chrono::milliseconds(std::min<std::uint32_t>(request->wait_ms, 5000));
        held_.push_back({std::move(*request), std::move(reply), Clock::now() + wait});
      }
    }
  }
  later.run();
}

namespace {

// Records in [from, end) of `log`: counted in the first kCounted bytes,
// the rest estimated at their average size (a follower that is far behind
// costs /stats one bounded read).
std::int64_t records_between(const ReplicaLog& log, std::uint64_t from, std::uint64_t end,
                             std::size_t max_record) {
  constexpr std::size_t kCounted = 4 << 20;
  from = std::max(from, log.start());
  if (from >= end) return 0;
  auto bytes = log.read(from, std::min<std::uint64_t>(end - from, kCounted));
  if (!bytes) return 0;
  const ScannedRecords scanned = scan_records(*bytes, max_record);
  if (scanned.consumed == 0) return 0;
  const std::uint64_t rest = end - from - scanned.consumed;
  return static_cast<std::int64_t>(scanned.count + rest * scanned.count / scanned.consumed);
}

}  // namespace

std::vector<std::pair<std::string, std::int64_t>> Replicator::lag(const std::string& topic) const {
  std::vector<std::pair<std::string, std::uint64_t>> acked;
  std::shared_ptr<ReplicaLog> log;
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(topic);
    if (it == topics_.end() || !it->second.role.leader) return {};
    log = it->second.log;
    for (const auto& r : it->second.role.replicas) {
      if (r == settings_.node_id) continue;
      auto f = it->second.followers.find(r);
      acked.emplace_back(r, f == it->second.followers.end() ? 0 : f->second.acked);
    }
  }
  // The log is read without mu_: publishing does not wait for /stats.
  const std::uint64_t end = log->end();
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& [replica, from] : acked) {
    out.emplace_back(replica, records_between(*log, from, end, settings_.max_record));
  }
  return out;
}

}  // namespace nsq::nsqd::cluster
