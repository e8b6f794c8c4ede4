// The channel's disk queue: refilling the memory queue from it, committing
// reads, and emptying, removing or shutting down (what reaches the disk).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/channel.h"
#include "core/deferred_file.h"
#include "core/read_file.h"
#include "core/worker_pool.h"
#include "diskqueue/atomic_file.h"

namespace nsq::nsqd {
namespace {

constexpr std::size_t kRefillBatch = 256;
constexpr std::size_t kRefillBytes = 4 * 1024 * 1024;

}  // namespace

// A clean restart's due times (close_for_shutdown) become deferred_due_:
// the messages are met again as the disk queue is read. The file is removed
// once read; the next clean shutdown writes what is still pending.
void Channel::load_deferred_file() {
  const auto path = deferred_file::path_for(backend_->meta_path());
  auto text = read_file_if_exists(path);
  if (!text || !*text) return;
  const auto steady_now = Clock::now();
  const std::int64_t unix_ms_now = unix_nanos() / 1'000'000;
  for (const auto& e : deferred_file::decode(**text)) {
    if (e.due_unix_ms <= unix_ms_now) continue;
    deferred_due_[e.id] = steady_now + std::chrono::milliseconds(e.due_unix_ms - unix_ms_now);
  }
  remove_deferred_file();
}

void Channel::remove_deferred_file() {
  if (!backend_) return;
  std::error_code ec;
  std::filesystem::remove(deferred_file::path_for(backend_->meta_path()), ec);
}

void Channel::commit_reads() {
  std::optional<diskqueue::ReadToken> token;
  {
    std::lock_guard lock(mu_);
    commit_scheduled_ = false;
    token.swap(pending_commit_);
  }
  if (!token) return;
  if (auto ec = backend_->commit_read(*token)) {
    ctx_.log.error("TOPIC({}): CHANNEL({}) failed to commit reads - {}", topic_name_, name_,
                   ec.message());
  }
}

// mu_ held. Reads the next batch from the disk queue on the disk pool.
void Channel::start_refill_locked() {
  if (!backend_ || refill_running_ || disk_pending_ <= 0 || exiting_) return;
  refill_running_ = true;
  std::weak_ptr<Channel> weak = weak_from_this();
  ctx_.disk_pool.submit([weak] {
    if (auto self = weak.lock()) self->refill();
  });
}

void Channel::refill() {
  std::uint64_t seq;
  {
    std::lock_guard lock(mu_);
    seq = disk_write_seq_;
  }
  // Decoded straight from the queue's read-ahead buffer.
  std::vector<QueuedMessage> decoded;
  std::vector<diskqueue::ReadToken> tokens;  // durable_: each record's, to commit
  std::vector<diskqueue::ReadToken> undecodable;
  MessageBatch made;
  const std::size_t read = backend_->read_each(
      kRefillBatch, kRefillBytes, [&](std::string_view data, const diskqueue::ReadToken& token) {
        if (durable_) tokens.push_back(token);
        auto m = decode_message(data);
        if (!m) {
          ctx_.log.error("TOPIC({}): CHANNEL({}) failed to decode message from disk - {}",
                         topic_name_, name_, m.error().message());
          if (durable_) undecodable.push_back(token);
          return;
        }
        decoded.push_back(QueuedMessage{made.make(m->header.id, m->header.timestamp_ns, m->body),
                                        m->header.attempts, durable_ ? token.seq : 0});
      });
  std::vector<std::shared_ptr<Subscriber>> wake;
  {
    std::lock_guard lock(mu_);
    refill_running_ = false;
    idle_cv_.notify_all();
    if (durable_) {
      for (const auto& t : tokens) read_commits_.add(t);
      for (const auto& t : undecodable) release_locked(QueuedMessage{{}, 0, t.seq});
    }
    // Deferred messages that went through the disk queue (a DPUB with
    // --sync-publish, or any deferred message over a restart): not delivered
    // before they are due.
    if (!deferred_due_.empty()) {
      Clock::time_point now = Clock::now();
      std::vector<QueuedMessage> ready;
      for (auto& m : decoded) {
        auto due = deferred_due_.find(m.msg->id());
        if (due == deferred_due_.end()) {
          ready.push_back(std::move(m));
          continue;
        }
        Clock::time_point when = due->second;
        deferred_due_.erase(due);
        if (when <= now) {
          ready.push_back(std::move(m));
        } else {
          m.msg = m.msg.alone();  // not to keep the refill's block until it is due
          deferred_.push(Deferred{when, std::move(m)});
          arm_deadline_locked(when);
        }
      }
      decoded.swap(ready);
    }
    for (auto& m : decoded) {
      if (drop_debt_ > 0) {  // drop_oldest: the excess that was on disk
        --drop_debt_;
        ++dropped_count_;
        release_locked(m);
        continue;
      }
      from_disk_.push_back(std::move(m));
    }
    disk_pending_ -= static_cast<std::int64_t>(read);
    if (read < kRefillBatch && disk_write_seq_ == seq) disk_pending_ = 0;
    if (disk_pending_ < 0) disk_pending_ = read == 0 ? 0 : 1;
    collect_waiting_locked(wake);
    if (read > 0 && from_disk_.size() < kRefillLowWater) start_refill_locked();
  }
  wake_all(wake);
}

std::error_code Channel::empty() {
  std::vector<std::shared_ptr<Subscriber>> wake;
  {
    std::lock_guard lock(mu_);
    if (ledger_) ledger_->channel_emptied(name_);
    memory_.clear();
    from_disk_.clear();
    in_flight_deadlines_.clear();
    in_flight_.clear();
    deferred_ = {};
    disk_pending_ = 0;
    read_commits_.clear();  // the disk queue drops its uncommitted reads too
    pending_commit_.reset();
    deferred_due_.clear();
    // Every client has room again: the next message may go to any of them.
    for (auto& [id, slot] : clients_) {
      slot.in_flight = 0;
      slot.waiting = true;
      slot.handoff.clear();
    }
    handed_off_ = 0;
  }
  std::error_code ec = backend_ ? backend_->empty() : std::error_code{};
  remove_deferred_file();
  {
    std::lock_guard lock(mu_);
    for (auto& [id, slot] : clients_) slot.waiting = true;
    collect_waiting_locked(wake);
  }
  wake_all(wake);
  return ec;
}

void Channel::remove() {
  std::vector<std::shared_ptr<Subscriber>> subs;
  {
    std::lock_guard lock(mu_);
    exiting_ = true;
    for (auto& [id, slot] : clients_) {
      if (auto s = slot.subscriber.lock()) subs.push_back(std::move(s));
    }
    clients_.clear();
    memory_.clear();
    from_disk_.clear();
    in_flight_deadlines_.clear();
    in_flight_.clear();
    deferred_ = {};
  }
  for (auto& s : subs) s->close_for_delete();
  if (backend_) {
    backend_->empty();
    backend_->remove();
    remove_deferred_file();
  }
}

void Channel::close_for_shutdown() {
  std::vector<std::string> records;
  std::vector<deferred_file::Entry> due_times;
  {
    std::unique_lock lock(mu_);
    exiting_ = true;
    // Records a refill already took from disk, and spills still landing,
    // must be accounted for before the snapshot.
    idle_cv_.wait(lock, [&] { return !refill_running_ && pending_spills_ == 0; });
    // Durable: a message read from disk is still there, uncommitted, and
    // comes back when the queue reopens; writing it again would double it.
    auto keep = [&](const QueuedMessage& m) {
      if (m.disk_seq == 0) records.push_back(encode_record(m));
    };
    for (auto& [id, slot] : clients_) {
      for (auto& m : slot.handoff) keep(m);
    }
    for (auto& m : from_disk_) keep(m);
    for (auto& m : memory_) keep(m);
    in_flight_.for_each([&](const MessageId&, InFlight& f) { keep(f.msg); });
    // Deferred ones go to disk too, as in Go; when each is due goes to the
    // side file (with what was read back from it and is still on disk).
    const auto steady_now = Clock::now();
    const std::int64_t unix_ms_now = unix_nanos() / 1'000'000;
    auto unix_ms = [&](Clock::time_point due) {
      return unix_ms_now +
             std::chrono::duration_cast<std::chrono::milliseconds>(due - steady_now).count();
    };
    while (!deferred_.empty()) {
      keep(deferred_.top().msg);
      due_times.push_back({deferred_.top().msg.msg->id(), unix_ms(deferred_.top().due)});
      deferred_.pop();
    }
    for (const auto& [id, due] : deferred_due_) due_times.push_back({id, unix_ms(due)});
    from_disk_.clear();
    memory_.clear();
    in_flight_deadlines_.clear();
    in_flight_.clear();
  }
  if (!backend_) return;
  if (durable_) commit_reads();  // what was FIN'd last, before the checkpoint
  if (due_times.empty()) {
    remove_deferred_file();
  } else if (auto ec = diskqueue::write_file_atomic(deferred_file::path_for(backend_->meta_path()),
                                                    deferred_file::encode(due_times))) {
    ctx_.log.error("TOPIC({}): CHANNEL({}) failed to save when its deferred messages are due - {}",
                   topic_name_, name_, ec.message());
  }
  if (!records.empty()) {
    std::vector<std::string_view> views(records.begin(), records.end());
    if (auto ec = backend_->put_batch(views)) {
      ctx_.log.error("TOPIC({}): CHANNEL({}) failed to flush {} messages to disk - {}", topic_name_,
                     name_, records.size(), ec.message());
    }
  }
  if (auto ec = backend_->close()) {
    ctx_.log.error("TOPIC({}): CHANNEL({}) failed to close disk queue - {}", topic_name_, name_,
                   ec.message());
  }
}

}  // namespace nsq::nsqd
