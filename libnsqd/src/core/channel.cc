#include "core/channel.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "core/deferred_journal.h"
#include "core/worker_pool.h"
#include "nsq/flags/go_duration.h"
#include "nsq/names.h"

namespace nsq::nsqd {

std::size_t Channel::IdHash::operator()(const MessageId& id) const noexcept {
  return std::hash<std::string_view>{}(std::string_view(id.data(), id.size()));
}

Channel::Channel(std::string topic_name, std::string name, QueueContext& ctx,
                 std::shared_ptr<diskqueue::DiskQueue> backend,
                 std::shared_ptr<diskqueue::DiskQueue> deferred_journal)
    : topic_name_(std::move(topic_name)),
      name_(std::move(name)),
      ephemeral_(is_ephemeral(name_)),
      ctx_(ctx),
      backend_(std::move(backend)),
      e2e_(ctx.options.e2e_processing_latency_percentiles.empty()
               ? nullptr
               : std::make_unique<LatencyStream>(ctx.options.e2e_processing_latency_percentiles,
                                                 ctx.options.e2e_processing_latency_window_time)),
      durable_(ctx.options.sync_publish && backend_ != nullptr),
      topology_aware_(ctx.options.topology_aware_consumption() && !durable_ &&
                      (!ctx.options.topology_zone.empty() || !ctx.options.topology_region.empty())),
      journal_(durable_ && deferred_journal
                   ? std::make_unique<DeferredJournal>(std::move(deferred_journal))
                   : nullptr) {
  if (backend_) {
    auto p = backend_->positions();
    disk_pending_ = (p.read_file_num != p.write_file_num || p.read_pos != p.write_pos) ? 1 : 0;
    load_deferred_times();
  }
}

Channel::~Channel() = default;

void Channel::put(std::span<const MessageRef> messages, std::chrono::milliseconds defer,
                  DiskWrites& spill) {
  std::vector<std::shared_ptr<Subscriber>> wake;
  {
    std::lock_guard lock(mu_);
    if (exiting_) return;
    message_count_ += messages.size();
    std::size_t first_spill = spill.size();
    if (defer.count() > 0) {
      Clock::time_point due = Clock::now() + defer;
      if (durable_) {
        // Durable first; the delay applies when the record is read back.
        std::vector<MessageId> ids;
        ids.reserve(messages.size());
        for (const MessageRef& m : messages) {
          deferred_due_[m->id()] = due;
          ids.push_back(m->id());
          spill_locked(QueuedMessage{m, 0}, spill);
        }
        account_spill_locked(spill, first_spill);
        journal_locked(ids, due, spill);
        return;
      }
      for (const MessageRef& m : messages) deferred_.push(Deferred{due, QueuedMessage{m, 0}});
      arm_deadline_locked(due);
      return;
    }
    for (const MessageRef& m : messages) enqueue_locked(QueuedMessage{m, 0}, spill);
    account_spill_locked(spill, first_spill);
    collect_waiting_locked(wake);
  }
  wake_all(wake);
}

// mu_ held. The memory queue first, the disk queue when it is full. Durable:
// new messages always go to disk; one read from disk (requeued, timed out)
// stays in memory, its uncommitted record covering it.
void Channel::enqueue_locked(QueuedMessage m, DiskWrites& spill) {
  if (durable_) {
    if (m.disk_seq != 0) {
      memory_.push_back(std::move(m));
    } else {
      spill_locked(m, spill);
    }
    return;
  }
  if (topology_aware_ && !local_clients_.empty() && hand_off_locked(m)) return;
  if (settings_.drops_oldest()) {
    // Never spilled: the bound keeps what stays in memory bounded.
    memory_.push_back(std::move(m));
    trim_locked();
    return;
  }
  if (static_cast<std::int64_t>(memory_.size()) < ctx_.options.mem_queue_size) {
    memory_.push_back(std::move(m));
    return;
  }
  if (!backend_) return;  // ephemeral: overflow is dropped, as in NSQ
  spill_locked(m, spill);
}

// mu_ held.
void Channel::spill_locked(const QueuedMessage& m, DiskWrites& spill) {
  if (spill.empty() || spill.back().queue != backend_ || spill.back().done) {
    spill.push_back(DiskWrite{backend_, {}, nullptr});
    if (durable_) spill.back().durability = diskqueue::Durability::fsync;
  }
  spill.back().records.push_back(encode_record(m));
}

// mu_ held.
void Channel::release_locked(const QueuedMessage& m) {
  if (!durable_ || m.disk_seq == 0) return;
  auto commit = read_commits_.finish(m.disk_seq);
  if (!commit) return;
  pending_commit_ = commit;
  if (commit_scheduled_) return;
  commit_scheduled_ = true;
  // commit_read may delete a finished segment: not on an I/O thread.
  std::weak_ptr<Channel> weak = weak_from_this();
  ctx_.disk_pool.submit([weak] {
    if (auto self = weak.lock()) self->commit_reads();
  });
}

// mu_ held. Gives the spills this channel added since `from` a completion
// that tells the reader side records landed on disk.
void Channel::account_spill_locked(DiskWrites& spill, std::size_t from) {
  for (std::size_t i = from; i < spill.size(); ++i) {
    if (spill[i].queue != backend_ || spill[i].done) continue;
    std::weak_ptr<Channel> weak = weak_from_this();
    std::size_t n = spill[i].records.size();
    ++pending_spills_;
    auto token = std::make_shared<PendingToken>([weak] {
      if (auto self = weak.lock()) {
        std::lock_guard lock(self->mu_);
        --self->pending_spills_;
        self->idle_cv_.notify_all();
      }
    });
    spill[i].done = [weak, n, token](std::error_code ec) {
      auto self = weak.lock();
      if (!self) return;
      std::vector<std::shared_ptr<Subscriber>> wake;
      {
        std::lock_guard lock(self->mu_);
        if (ec) {
          self->ctx_.log.error("TOPIC({}): CHANNEL({}) failed to write {} messages to disk - {}",
                               self->topic_name_, self->name_, n, ec.message());
          return;
        }
        self->disk_pending_ += static_cast<std::int64_t>(n);
        ++self->disk_write_seq_;
        // --sync-publish spills every message: drop_oldest trims once it landed.
        if (self->settings_.drops_oldest()) self->trim_locked();
        self->collect_waiting_locked(wake);
        if (!wake.empty()) self->start_refill_locked();
      }
      wake_all(wake);
    };
  }
}

void Channel::collect_waiting_locked(std::vector<std::shared_ptr<Subscriber>>& out) {
  if (paused_) return;
  for (auto& [id, slot] : clients_) {
    if (!slot.waiting) continue;
    slot.waiting = false;
    if (auto s = slot.subscriber.lock()) out.push_back(std::move(s));
  }
}

void Channel::wake_all(const std::vector<std::shared_ptr<Subscriber>>& subs) {
  for (const auto& s : subs) s->wake();
}

Channel::AddResult Channel::add_client(ClientId id, std::weak_ptr<Subscriber> subscriber,
                                       Locality locality) {
  std::lock_guard lock(mu_);
  if (exiting_) return AddResult::exiting;
  int limit = ctx_.options.max_channel_consumers;
  if (limit > 0 && static_cast<int>(clients_.size()) >= limit) {
    return AddResult::too_many_consumers;
  }
  Slot& slot = clients_[id];
  slot = Slot{};
  slot.subscriber = std::move(subscriber);
  slot.locality = locality;
  if (locality != Locality::global) local_clients_.push_back(id);
  return AddResult::ok;
}

std::size_t Channel::remove_client(ClientId id) {
  std::vector<std::shared_ptr<Subscriber>> wake;
  std::size_t left = 0;
  {
    std::lock_guard lock(mu_);
    if (auto it = clients_.find(id); it != clients_.end()) {
      if (it->second.locality != Locality::global) {
        std::erase(local_clients_, id);
        take_back_locked(it->second);
      }
      clients_.erase(it);
      collect_waiting_locked(wake);
    }
    left = clients_.size();
  }
  wake_all(wake);
  return left;
}

void Channel::take(ClientId id, std::int64_t rdy, std::int64_t max_count, int sample_rate,
                   std::chrono::nanoseconds msg_timeout, std::vector<QueuedMessage>& out) {
  std::vector<std::shared_ptr<Subscriber>> wake;
  DeadLetters letters;
  take_collecting(id, rdy, max_count, sample_rate, msg_timeout, out, wake, letters);
  wake_all(wake);
  send_dead_letters(std::move(letters));
}

// take() under mu_, collecting whom to wake and what to dead-letter once
// the lock is released.
void Channel::take_collecting(ClientId id, std::int64_t rdy, std::int64_t max_count,
                              int sample_rate, std::chrono::nanoseconds msg_timeout,
                              std::vector<QueuedMessage>& out,
                              std::vector<std::shared_ptr<Subscriber>>& wake,
                              DeadLetters& letters) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(id);
  if (it == clients_.end() || exiting_) return;
  Slot& slot = it->second;
  slot.rdy = rdy;
  std::int64_t room = std::min(rdy - slot.in_flight, max_count);
  if (paused_) {
    slot.waiting = rdy > 0;  // unpause wakes it
    return;
  }
  if (room <= 0) {
    slot.waiting = false;  // its own FIN, RDY or a timeout makes room
    if (!slot.handoff.empty()) {
      // It lowered RDY after messages were handed to it: anyone may have them.
      take_back_locked(slot);
      collect_waiting_locked(wake);
    }
    return;
  }
  Clock::time_point now = Clock::now();
  const auto lane = std::chrono::duration_cast<Clock::duration>(msg_timeout);
  Clock::time_point deadline = now + lane;
  const std::int64_t ttl_ns = ttl_locked().count();
  const std::int64_t now_ns = ttl_ns > 0 ? unix_nanos() : 0;
  std::int64_t taken = 0;
  while (taken < room) {
    QueuedMessage m;
    if (!slot.handoff.empty()) {
      m = std::move(slot.handoff.front());
      slot.handoff.pop_front();
      --handed_off_;
    } else if (!from_disk_.empty()) {
      m = std::move(from_disk_.front());
      from_disk_.pop_front();
    } else if (!memory_.empty()) {
      m = std::move(memory_.front());
      memory_.pop_front();
    } else {
      break;
    }
    if (ttl_ns > 0 && now_ns - m.msg->timestamp() > ttl_ns) {
      leave_locked(std::move(m), true, letters);
      continue;
    }
    // sample_rate n keeps roughly n+1 of every 100 messages (NSQ's rule).
    if (sample_rate > 0 && static_cast<int>(rng_() % 100) > sample_rate) {
      release_locked(m);
      if (ledger_) ledger_->finished(name_, *m.msg);
      continue;
    }
    ++m.attempts;
    auto [entry, inserted] = in_flight_.try_emplace(m.msg->id());
    if (!inserted) {  // the same id is already out: a replayed duplicate
      release_locked(m);
      continue;
    }
    InFlight& f = *entry;
    f.msg = m;
    f.client = id;
    f.deadline = deadline;
    f.delivered = now;
    in_flight_deadlines_.push(&f, lane);
    out.push_back(std::move(m));
    ++taken;
  }
  slot.in_flight += taken;
  slot.waiting = taken < room;
  if (ctx_.options.topology_aware_consumption()) count_delivered_locked(slot.locality, taken);
  if (taken > 0) arm_deadline_locked(deadline);
  if (from_disk_.size() < kRefillLowWater) start_refill_locked();
}

Channel::AckResult Channel::finish(ClientId id, const MessageId& msg) {
  std::lock_guard lock(mu_);
  const AckResult result = finish_locked(id, msg);
  if (result == AckResult::ok) {
    if (auto c = clients_.find(id); c != clients_.end()) --c->second.in_flight;
  }
  return result;
}

void Channel::finish_many(ClientId id, std::span<const MessageId> msgs,
                          std::span<AckResult> results) {
  std::lock_guard lock(mu_);
  std::int64_t finished = 0;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    results[i] = finish_locked(id, msgs[i]);
    if (results[i] == AckResult::ok) ++finished;
  }
  if (auto c = clients_.find(id); c != clients_.end()) c->second.in_flight -= finished;
}

// mu_ held; the client's in-flight count is the caller's to lower.
Channel::AckResult Channel::finish_locked(ClientId id, const MessageId& msg) {
  AckResult result = AckResult::not_in_flight;
  in_flight_.visit(msg, [&](InFlight& f) {
    if (f.client != id) {
      result = AckResult::not_owner;
      return false;
    }
    if (e2e_) e2e_->record(unix_nanos() - f.msg.msg->timestamp(), Clock::now());
    release_locked(f.msg);
    if (ledger_) ledger_->finished(name_, *f.msg.msg);
    in_flight_deadlines_.remove(&f);
    result = AckResult::ok;
    return true;
  });
  return result;
}

Channel::AckResult Channel::requeue(ClientId id, const MessageId& msg,
                                    std::chrono::milliseconds delay, DiskWrites& spill) {
  std::vector<std::shared_ptr<Subscriber>> wake;
  DeadLetters letters;
  {
    std::lock_guard lock(mu_);
    AckResult found = AckResult::not_in_flight;
    QueuedMessage m;
    in_flight_.visit(msg, [&](InFlight& f) {
      if (f.client != id) {
        found = AckResult::not_owner;
        return false;
      }
      m = std::move(f.msg);
      in_flight_deadlines_.remove(&f);
      found = AckResult::ok;
      return true;
    });
    if (found != AckResult::ok) return found;
    if (auto c = clients_.find(id); c != clients_.end()) --c->second.in_flight;
    ++requeue_count_;
    if (exhausted_locked(m)) {
      leave_locked(std::move(m), false, letters);
    } else if (delay.count() > 0) {
      // Its block-mates are long gone by the time it is due: it does not
      // keep their memory meanwhile.
      m.msg = m.msg.alone();
      Clock::time_point due = Clock::now() + delay;
      journal_locked({&m.msg->id(), 1}, due, spill);
      deferred_.push(Deferred{due, std::move(m)});
      arm_deadline_locked(due);
    } else {
      std::size_t first_spill = spill.size();
      enqueue_locked(std::move(m), spill);
      account_spill_locked(spill, first_spill);
      collect_waiting_locked(wake);
    }
  }
  wake_all(wake);
  send_dead_letters(std::move(letters));
  return AckResult::ok;
}

Channel::AckResult Channel::touch(ClientId id, const MessageId& msg,
                                  std::chrono::nanoseconds msg_timeout) {
  std::lock_guard lock(mu_);
  InFlight* found = in_flight_.find(msg);
  if (!found) return AckResult::not_in_flight;
  if (found->client != id) return AckResult::not_owner;
  InFlight& f = *found;
  Clock::time_point cap = f.delivered + ctx_.options.max_msg_timeout;
  const auto lane = std::chrono::duration_cast<Clock::duration>(msg_timeout);
  in_flight_deadlines_.remove(&f);
  f.deadline = std::min(Clock::now() + lane, cap);
  in_flight_deadlines_.push(&f, lane);
  arm_deadline_locked(f.deadline);
  return AckResult::ok;
}

// mu_ held. Makes sure the deadline task runs by `when`.
void Channel::arm_deadline_locked(Clock::time_point when) {
  if (when >= armed_until_) return;
  armed_until_ = when;
  std::weak_ptr<Channel> weak = weak_from_this();
  deadline_task_ = ctx_.deadlines.schedule(when, [weak] {
    if (auto self = weak.lock()) self->on_deadline();
  });
}

void Channel::on_deadline() { process_deadlines(Clock::now()); }

void Channel::process_deadlines(Clock::time_point now) {
  std::vector<std::shared_ptr<Subscriber>> wake;
  DiskWrites spill;
  DeadLetters letters;
  {
    std::lock_guard lock(mu_);
    if (now >= armed_until_) armed_until_ = Clock::time_point::max();
    if (exiting_) return;
    std::size_t first_spill = spill.size();
    while (!in_flight_deadlines_.empty() && in_flight_deadlines_.top()->deadline <= now) {
      InFlight* f = in_flight_deadlines_.top();
      in_flight_deadlines_.remove(f);
      ++timeout_count_;
      if (auto c = clients_.find(f->client); c != clients_.end()) {
        --c->second.in_flight;
        c->second.waiting = true;  // it has room again
      }
      QueuedMessage m = std::move(f->msg);
      in_flight_.erase(m.msg->id());
      if (exhausted_locked(m)) {
        leave_locked(std::move(m), false, letters);
      } else {
        enqueue_locked(std::move(m), spill);
      }
    }
    while (!deferred_.empty() && deferred_.top().due <= now) {
      QueuedMessage m = deferred_.top().msg;
      deferred_.pop();
      enqueue_locked(std::move(m), spill);
    }
    account_spill_locked(spill, first_spill);
    collect_waiting_locked(wake);
    Clock::time_point next = Clock::time_point::max();
    if (!in_flight_deadlines_.empty()) next = in_flight_deadlines_.top()->deadline;
    if (!deferred_.empty()) next = std::min(next, deferred_.top().due);
    if (next != Clock::time_point::max()) arm_deadline_locked(next);
  }
  // Not on the deadline thread, so other channels' deadlines stay on time.
  ctx_.disk_writer.submit_async(std::move(spill), nullptr);
  wake_all(wake);
  send_dead_letters(std::move(letters));
}

void Channel::pause() {
  std::lock_guard lock(mu_);
  paused_ = true;
  if (ledger_) ledger_->channel_paused(name_, true);
}

void Channel::unpause() {
  std::vector<std::shared_ptr<Subscriber>> wake;
  {
    std::lock_guard lock(mu_);
    paused_ = false;
    if (ledger_) ledger_->channel_paused(name_, false);
    for (auto& [id, slot] : clients_) slot.waiting = true;
    collect_waiting_locked(wake);
  }
  wake_all(wake);
}

void Channel::set_ledger(std::shared_ptr<DeliveryLedger> ledger) {
  std::lock_guard lock(mu_);
  ledger_ = std::move(ledger);
}

bool Channel::paused() const {
  std::lock_guard lock(mu_);
  return paused_;
}

ChannelStats Channel::stats() const {
  std::lock_guard lock(mu_);
  ChannelStats s;
  std::int64_t backend_depth = backend_ ? backend_->depth() : 0;
  s.depth = depth_locked();
  s.backend_depth = backend_depth;
  s.in_flight = static_cast<std::int64_t>(in_flight_.size());
  s.deferred = static_cast<std::int64_t>(deferred_.size());
  s.message_count = message_count_;
  s.requeue_count = requeue_count_;
  s.timeout_count = timeout_count_;
  s.zone_local = zone_local_count_;
  s.region_local = region_local_count_;
  s.global = global_count_;
  s.expired = expired_count_;
  s.dead_lettered = dead_letter_count_;
  s.discarded = discarded_count_;
  s.dropped = dropped_count_;
  s.clients = clients_.size();
  s.paused = paused_;
  return s;
}

stats::Channel Channel::snapshot(bool include_clients) const {
  stats::Channel out;
  std::vector<std::pair<std::shared_ptr<Subscriber>, std::int64_t>> subs;
  ChannelStats s = stats();
  out.name = name_;
  out.depth = s.depth;
  out.backend_depth = s.backend_depth;
  out.in_flight_count = s.in_flight;
  out.deferred_count = s.deferred;
  out.message_count = s.message_count;
  out.requeue_count = s.requeue_count;
  out.timeout_count = s.timeout_count;
  out.zone_local_msg_count = s.zone_local;
  out.region_local_msg_count = s.region_local;
  out.global_msg_count = s.global;
  out.expired_count = s.expired;
  out.dead_letter_count = s.dead_lettered;
  out.discarded_count = s.discarded;
  out.dropped_count = s.dropped;
  {
    std::lock_guard lock(mu_);
    out.max_attempts = settings_.max_attempts;
    out.dead_letter_topic = settings_.dead_letter_topic;
    if (settings_.message_ttl.count() > 0) {
      out.message_ttl = flags::format_go_duration(settings_.message_ttl);
    }
    out.max_depth = settings_.max_depth;
    if (settings_.max_depth > 0) out.depth_policy = depth_policy_name(settings_.depth_policy);
  }
  out.client_count = static_cast<std::int64_t>(s.clients);
  out.paused = s.paused;
  if (e2e_) out.e2e = e2e_->snapshot(Clock::now());
  if (include_clients) {
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, slot] : clients_) {
        if (auto sub = slot.subscriber.lock()) subs.emplace_back(std::move(sub), slot.in_flight);
      }
    }
    for (const auto& [sub, in_flight] : subs) {
      stats::Client c = sub->stats();
      c.in_flight_count = in_flight;
      c.node_topology_region = ctx_.options.topology_region;
      c.node_topology_zone = ctx_.options.topology_zone;
      out.clients.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace nsq::nsqd
