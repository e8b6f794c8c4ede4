// The channel's disk queue: refilling the memory queue from it, committing
// reads, and emptying, removing or shutting down (what reaches the disk).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/channel.h"
#include "core/deferred_file.h"
#include "core/deferred_journal.h"
#include "core/heap_access.h"
#include "core/read_file.h"
#include "core/worker_pool.h"
#include "diskqueue/atomic_file.h"

namespace nsq::nsqd {
namespace {

constexpr std::size_t kRefillBatch = 256;
constexpr std::size_t kRefillBytes = 4 * 1024 * 1024;
// A journal is compacted once it holds this many lines and four times as
// many as are still deferred.
constexpr std::size_t kJournalMinLines = 4096;

std::int64_t unix_ms_now() { return unix_nanos() / 1'000'000; }

}  // namespace

// When each deferred message is due, as Unix ms, from what the channel holds:
// those on their way through the disk queue and those waiting in memory.
std::vector<deferred_file::Entry> Channel::due_times_locked() const {
  const auto steady_now = Clock::now();
  const std::int64_t unix_now = unix_ms_now();
  auto unix_ms = [&](Clock::time_point due) {
    return unix_now +
           std::chrono::duration_cast<std::chrono::milliseconds>(due - steady_now).count();
  };
  std::vector<deferred_file::Entry> out;
  out.reserve(deferred_due_.size() + deferred_.size());
  for (const auto& [id, due] : deferred_due_) out.push_back({id, unix_ms(due)});
  for (const Deferred& d : heap_array(deferred_)) out.push_back({d.msg.msg->id(), unix_ms(d.due)});
  return out;
}

// Due times kept over a restart become deferred_due_: the messages are met
// again as the disk queue is read. First the journal's (--sync-publish:
// every DPUB and delayed REQ, over a crash too), then the side file of a
// clean shutdown, newer. The side file is removed once read (and, with a
// journal, once the journal holds what it said); the next clean shutdown
// writes what is still pending.
void Channel::load_deferred_times() {
  const auto steady_now = Clock::now();
  const std::int64_t unix_now = unix_ms_now();
  auto apply = [&](const std::vector<deferred_file::Entry>& entries) {
    // The last line for an id wins: a REQ after the DPUB's due time.
    for (const auto& e : entries) {
      if (e.due_unix_ms <= unix_now) {
        deferred_due_.erase(e.id);
      } else {
        deferred_due_[e.id] = steady_now + std::chrono::milliseconds(e.due_unix_ms - unix_now);
      }
    }
  };
  const std::vector<deferred_file::Entry> journaled =
      journal_ ? journal_->read_all() : std::vector<deferred_file::Entry>{};
  apply(journaled);
  const auto path = deferred_file::path_for(backend_->meta_path());
  auto text = read_file_if_exists(path);
  const bool side_file = text && *text;
  if (side_file) apply(deferred_file::decode(**text));
  if (journal_ && (side_file || !journaled.empty())) {
    const auto live = due_times_locked();
    journal_lines_ = live.size();
    if (auto ec = journal_->compact(live, journal_->end())) {
      ctx_.log.error(
          "TOPIC({}): CHANNEL({}) failed to compact the journal of its deferred "
          "messages - {}",
          topic_name_, name_, ec.message());
      return;  // the side file stays: read again next time
    }
  }
  if (side_file) remove_deferred_file();
}

// mu_ held. --sync-publish: `ids` are deferred until `due`; the lines go
// with `spill`, so a DPUB is acknowledged once its due time is on disk too.
void Channel::journal_locked(std::span<const MessageId> ids, Clock::time_point due,
                             DiskWrites& spill) {
  if (!journal_ || ids.empty()) return;
  const std::int64_t due_ms =
      unix_ms_now() +
      std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now()).count();
  std::vector<deferred_file::Entry> entries;
  entries.reserve(ids.size());
  for (const MessageId& id : ids) entries.push_back({id, due_ms});
  spill.push_back(journal_->append(entries));
  journal_lines_ += ids.size();
  const std::size_t live = deferred_due_.size() + deferred_.size();
  if (journal_compacting_ || journal_lines_ <= std::max<std::size_t>(kJournalMinLines, 4 * live)) {
    return;
  }
  journal_compacting_ = true;
  std::weak_ptr<Channel> weak = weak_from_this();
  ctx_.disk_pool.submit([weak] {
    if (auto self = weak.lock()) self->compact_journal();
  });
}

// On the disk pool. Lines appended after the snapshot's mark are kept,
// those before it are in the snapshot or no longer deferred. Shutting down
// and removing the channel wait for it (journal_compacting_).
void Channel::compact_journal() {
  std::vector<deferred_file::Entry> live;
  DeferredJournal::Mark mark;
  {
    std::lock_guard lock(mu_);
    live = due_times_locked();
    mark = journal_->end();
  }
  if (auto ec = journal_->compact(live, mark)) {
    ctx_.log.error(
        "TOPIC({}): CHANNEL({}) failed to compact the journal of its deferred messages "
        "- {}",
        topic_name_, name_, ec.message());
  }
  std::lock_guard lock(mu_);
  journal_compacting_ = false;
  journal_lines_ = live.size();
  idle_cv_.notify_all();
}

void Channel::read_back_deferred() {
  std::lock_guard lock(mu_);
  if (!deferred_due_.empty()) start_refill_locked();
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
  if (journal_) {
    if (auto journal_ec = journal_->queue()->empty(); journal_ec && !ec) ec = journal_ec;
  }
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
    std::unique_lock lock(mu_);
    exiting_ = true;
    idle_cv_.wait(lock, [&] { return !journal_compacting_; });
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
  if (journal_) {
    journal_->queue()->empty();
    journal_->queue()->remove();
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
    idle_cv_.wait(lock,
                  [&] { return !refill_running_ && pending_spills_ == 0 && !journal_compacting_; });
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
    due_times = due_times_locked();
    for (const Deferred& d : heap_array(deferred_)) keep(d.msg);
    deferred_ = {};
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
  if (journal_) {
    if (auto ec = journal_->queue()->close()) {
      ctx_.log.error(
          "TOPIC({}): CHANNEL({}) failed to close the journal of its deferred "
          "messages - {}",
          topic_name_, name_, ec.message());
    }
  }
}

}  // namespace nsq::nsqd
