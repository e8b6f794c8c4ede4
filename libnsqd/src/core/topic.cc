#include "core/topic.h"

#include <spdlog/spdlog.h>

#include <optional>

#include "core/worker_pool.h"
#include "nsq/flags/go_duration.h"
#include "nsq/names.h"
#include "nsqd/errc.h"

namespace nsq::nsqd {
namespace {

constexpr std::size_t kDrainBatch = 256;
constexpr std::size_t kDrainBytes = 4 * 1024 * 1024;

}  // namespace

Topic::Topic(std::string name, std::int64_t node_id, QueueContext& ctx,
             std::shared_ptr<diskqueue::DiskQueue> backend, bool started)
    : name_(std::move(name)),
      ephemeral_(is_ephemeral(name_)),
      ctx_(ctx),
      backend_(std::move(backend)),
      ids_(node_id),
      started_(started) {
  settings_.message_ttl =
      std::chrono::duration_cast<std::chrono::milliseconds>(ctx.options.default_message_ttl);
  settings_.max_depth = ctx.options.default_max_depth;
  settings_.depth_policy = default_depth_policy(ctx.options);
  if (backend_) {
    auto p = backend_->positions();
    backend_has_data_ = p.read_file_num != p.write_file_num || p.read_pos != p.write_pos;
  }
}

MessageHeader Topic::next_header_locked(std::int64_t& now) {
  auto id = ids_.next(now);
  // Too many ids in one ~1 ms tick, or the clock stepped back: wait for the
  // next tick (NSQ sleeps and retries the same way).
  while (!id) id = ids_.next(now = unix_nanos());
  return MessageHeader{now, 0, *id};
}

std::error_code Topic::publish(std::span<const std::string_view> bodies,
                               std::chrono::milliseconds defer, DiskWrites& spill) {
  std::int64_t now = 0;  // read under mu_, at the first message
  std::size_t bytes = 0;
  for (std::string_view body : bodies) bytes += body.size();
  MessageBatch batch(bodies.size(), bytes);
  return publish_each(
      bodies.size(), defer, spill,
      [&](std::size_t i) {
        if (now == 0) now = unix_nanos();
        return std::pair(next_header_locked(now), bodies[i]);
      },
      [&](std::size_t, const MessageHeader& h, std::string_view body) {
        return batch.make(h.id, h.timestamp_ns, body);
      });
}

std::error_code Topic::publish_prepared(std::span<const MessageRef> messages,
                                        std::chrono::milliseconds defer, DiskWrites& spill) {
  return publish_each(
      messages.size(), defer, spill,
      [&](std::size_t i) {
        const MessageRef& m = messages[i];
        return std::pair(MessageHeader{m->timestamp(), 0, m->id()}, m->body());
      },
      [&](std::size_t i, const MessageHeader&, std::string_view) { return messages[i]; });
}

// `describe(i)`: the i-th message's header and body, under mu_; `keep(i,
// header, body)`: the shared message to hold it, built only for messages
// kept in memory (a spilled one is encoded straight from its body).
template <class Describe, class Keep>
std::error_code Topic::publish_each(std::size_t n, std::chrono::milliseconds defer,
                                    DiskWrites& spill, Describe describe, Keep keep) {
  std::vector<MessageRef> messages;
  std::vector<std::shared_ptr<Channel>> targets;
  {
    std::lock_guard lock(mu_);
    if (exiting_) return make_error_code(errc::exiting);
    message_count_ += n;
    bool direct = can_fan_out_locked() && !draining_ && backlog_.empty() && !backend_has_data_ &&
                  backend_writes_ == 0;
    if (direct) {
      messages.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        auto [header, body] = describe(i);
        messages.push_back(keep(i, header, body));
        message_bytes_ += body.size();
      }
      targets.reserve(channels_.size());
      for (auto& [name, ch] : channels_) targets.push_back(ch);
      if (ledger_) ledger_->handed(messages);
    } else {
      std::size_t first_spill = spill.size();
      // --sync-publish: the backlog is the disk queue, fsynced before the OK.
      const bool durable = ctx_.options.sync_publish && backend_;
      for (std::size_t i = 0; i < n; ++i) {
        auto [header, body] = describe(i);
        message_bytes_ += body.size();
        if (!durable && (settings_.drops_oldest() || static_cast<std::int64_t>(backlog_.size()) <
                                                         ctx_.options.mem_queue_size)) {
          // drop_oldest: never spilled, the bound keeps the backlog bounded.
          backlog_.push_back(Pending{keep(i, header, body), defer});
        } else if (backend_) {
          // On disk a message loses its delay, as in NSQ.
          if (spill.empty() || spill.back().queue != backend_ || spill.back().done) {
            spill.push_back(DiskWrite{backend_, {}, nullptr});
            if (durable) spill.back().durability = diskqueue::Durability::fsync;
            spill.back().records.reserve(n);
          }
          spill.back().records.push_back(encode_record(header, body));
        }
        // Ephemeral and full: dropped, as in NSQ.
      }
      if (settings_.drops_oldest()) {
        const std::int64_t on_disk = backend_ ? backend_->depth() : 0;
        while (!backlog_.empty() &&
               static_cast<std::int64_t>(backlog_.size()) + on_disk > settings_.max_depth) {
          backlog_.pop_front();
          ++dropped_count_;
        }
      }
      // One completion per write this call added, once all its records are in.
      for (std::size_t i = first_spill; i < spill.size(); ++i) {
        if (spill[i].queue != backend_ || spill[i].done) continue;
        ++backend_writes_;
        std::weak_ptr<Topic> weak = weak_from_this();
        auto token = std::make_shared<PendingToken>([weak] {
          if (auto self = weak.lock()) {
            std::lock_guard guard(self->mu_);
            --self->backend_writes_;
            self->start_drain_locked();
            self->idle_cv_.notify_all();
          }
        });
        spill[i].done = [weak, token](std::error_code ec) {
          auto self = weak.lock();
          if (!self || ec) return;
          std::lock_guard guard(self->mu_);
          self->backend_has_data_ = true;
        };
      }
      start_drain_locked();
      return {};
    }
  }
  fan_out(targets, messages, defer, spill);
  return {};
}

void Topic::fan_out(const std::vector<std::shared_ptr<Channel>>& channels,
                    std::span<const MessageRef> messages, std::chrono::milliseconds defer,
                    DiskWrites& spill) {
  for (const auto& ch : channels) ch->put(messages, defer, spill);
}

// mu_ held.
void Topic::start_drain_locked() {
  if (draining_ || !can_fan_out_locked()) return;
  if (backlog_.empty() && !backend_has_data_) return;
  draining_ = true;
  std::weak_ptr<Topic> weak = weak_from_this();
  ctx_.disk_pool.submit([weak] {
    if (auto self = weak.lock()) self->drain();
  });
}

// On the disk pool: moves the backlog (memory, then disk) into the channels.
void Topic::drain() {
  for (;;) {
    std::vector<Pending> batch;
    std::vector<std::shared_ptr<Channel>> targets;
    {
      std::lock_guard lock(mu_);
      if (!can_fan_out_locked()) {
        draining_ = false;
        idle_cv_.notify_all();
        return;
      }
      while (!backlog_.empty() && batch.size() < kDrainBatch) {
        batch.push_back(std::move(backlog_.front()));
        backlog_.pop_front();
      }
    }
    bool from_disk = batch.empty() && backend_;
    // --sync-publish: a batch leaves the topic's disk queue (its read is
    // committed) only once every channel holds it durably.
    const bool durable = ctx_.options.sync_publish && from_disk;
    std::optional<diskqueue::ReadToken> last_read;
    MessageBatch made;
    if (from_disk) {
      backend_->read_each(
          kDrainBatch, kDrainBytes, [&](std::string_view data, const diskqueue::ReadToken& token) {
            last_read = token;
            auto m = decode_message(data);
            if (!m) {
              ctx_.log.error("TOPIC({}): failed to decode message from disk - {}", name_,
                             m.error().message());
              return;
            }
            batch.push_back(Pending{made.make(m->header.id, m->header.timestamp_ns, m->body), {}});
          });
    }
    {
      std::lock_guard lock(mu_);
      if (!can_fan_out_locked()) {
        // Shutting down (or paused) after the batch left the disk queue: it
        // goes back in front of the backlog, which shutdown writes to disk.
        // Durable: it never left (not committed); reopening reads it again.
        if (durable) batch.clear();
        for (auto it = batch.rbegin(); it != batch.rend(); ++it)
          backlog_.push_front(std::move(*it));
        draining_ = false;
        idle_cv_.notify_all();
        return;
      }
      // The channels and the ledger as of now: a channel created meanwhile
      // gets the batch, and is known to owe it.
      for (auto& [n, ch] : channels_) targets.push_back(ch);
      if (ledger_) {
        for (const Pending& p : batch) ledger_->handed({&p.msg, 1});
      }
      if (batch.empty()) {
        // Done, unless a spill is still landing: its completion restarts us.
        if (backlog_.empty() && backend_writes_ == 0) backend_has_data_ = false;
        if (backlog_.empty()) {
          draining_ = false;
          idle_cv_.notify_all();
          return;
        }
        continue;
      }
    }
    DiskWrites spill;
    std::size_t i = 0;
    while (i < batch.size()) {
      // Runs of the same delay go to the channels together.
      std::size_t j = i;
      std::vector<MessageRef> run;
      while (j < batch.size() && batch[j].defer == batch[i].defer) run.push_back(batch[j++].msg);
      fan_out(targets, run, batch[i].defer, spill);
      i = j;
    }
    if (ctx_.disk_writer.write(spill)) {
      // Durable: not committed, so a restart delivers the batch again.
      continue;
    }
    if (durable && last_read) {
      if (auto ec = backend_->commit_read(*last_read)) {
        ctx_.log.error("TOPIC({}): failed to commit reads - {}", name_, ec.message());
      }
    }
  }
}

std::shared_ptr<Channel> Topic::get_or_create_channel(const std::string& name, bool* created) {
  std::shared_ptr<Channel> channel;
  {
    std::lock_guard lock(mu_);
    if (auto it = channels_.find(name); it != channels_.end()) {
      if (created) *created = false;
      return it->second;
    }
    if (exiting_) return nullptr;
  }
  // Opening the disk queue reads files: done without the lock.
  std::shared_ptr<diskqueue::DiskQueue> backend;
  std::shared_ptr<diskqueue::DiskQueue> deferred_journal;
  if (!is_ephemeral(name)) backend = ctx_.open_backend(name_ + ":" + name);
  // DeferredJournal: ':' is in no channel name, so no channel's queue.
  if (backend && ctx_.options.sync_publish) {
    deferred_journal = ctx_.open_backend(name_ + ":" + name + ":deferred");
  }
  auto fresh =
      std::make_shared<Channel>(name_, name, ctx_, std::move(backend), std::move(deferred_journal));
  QueueSettings defaults;  // --default-max-attempts, --default-dead-letter-topic
  defaults.max_attempts = ctx_.options.default_max_attempts;
  defaults.dead_letter_topic = ctx_.options.default_dead_letter_topic;
  defaults.max_depth = ctx_.options.default_max_depth;
  defaults.depth_policy = default_depth_policy(ctx_.options);
  fresh->set_settings(std::move(defaults));
  {
    std::lock_guard lock(mu_);
    fresh->set_topic_ttl(settings_.message_ttl);
    auto [it, inserted] = channels_.emplace(name, fresh);
    if (created) *created = inserted;
    channel = it->second;
    if (inserted) {
      ctx_.log.info("TOPIC({}): new channel({})", name_, name);
      if (ledger_ && !fresh->ephemeral()) {
        ledger_->channel_added(name, false);
        fresh->set_ledger(ledger_);
      }
      start_drain_locked();
    }
  }
  if (channel == fresh) {
    fresh->read_back_deferred();
    if (!is_ephemeral(name) && ctx_.topology_changed) ctx_.topology_changed();
    if (ctx_.registration_changed) ctx_.registration_changed(true, name_, name);
  }
  return channel;
}

void Topic::set_settings(QueueSettings settings) {
  std::lock_guard lock(mu_);
  settings_ = std::move(settings);
  for (auto& [n, ch] : channels_) ch->set_topic_ttl(settings_.message_ttl);
}

std::error_code Topic::admit(std::size_t n) const {
  std::vector<std::shared_ptr<Channel>> targets;
  {
    std::lock_guard lock(mu_);
    const auto more = static_cast<std::int64_t>(n);
    const std::int64_t depth =
        static_cast<std::int64_t>(backlog_.size()) + (backend_ ? backend_->depth() : 0);
    if (settings_.rejects_beyond() && depth + more > settings_.max_depth) {
      return make_error_code(errc::full);
    }
    for (auto& [name, ch] : channels_) targets.push_back(ch);
  }
  for (const auto& ch : targets) {
    if (ch->would_reject(static_cast<std::int64_t>(n))) return make_error_code(errc::full);
  }
  return {};
}

std::vector<PeekedMessage> Topic::peek(std::size_t n) const {
  n = std::min(n, kMaxPeek);
  std::vector<PeekedMessage> out;
  {
    std::lock_guard lock(mu_);
    for (const Pending& p : backlog_) {
      if (out.size() >= n) break;
      out.push_back(PeekedMessage{p.msg->id(), p.msg->timestamp(), 0, std::string(p.msg->body()),
                                  std::nullopt});
    }
  }
  if (backend_ && out.size() < n) {
    backend_->peek_each(n - out.size(), 4 * 1024 * 1024, [&](std::string_view data) {
      if (auto m = decode_message(data)) {
        out.push_back(PeekedMessage{m->header.id, m->header.timestamp_ns, m->header.attempts,
                                    std::string(m->body), std::nullopt});
      }
    });
  }
  return out;
}

QueueSettings Topic::settings() const {
  std::lock_guard lock(mu_);
  return settings_;
}

std::shared_ptr<Channel> Topic::find_channel(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = channels_.find(name);
  return it == channels_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<Channel>> Topic::channels() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Channel>> out;
  for (auto& [n, ch] : channels_) out.push_back(ch);
  return out;
}

std::size_t Topic::channel_count() const {
  std::lock_guard lock(mu_);
  return channels_.size();
}

bool Topic::delete_channel(const std::string& name) {
  std::shared_ptr<Channel> channel;
  {
    std::lock_guard lock(mu_);
    auto it = channels_.find(name);
    if (it == channels_.end()) return false;
    channel = std::move(it->second);
    channels_.erase(it);
    if (ledger_) ledger_->channel_removed(name);
  }
  ctx_.log.info("TOPIC({}): deleting channel {}", name_, name);
  channel->remove();
  if (!channel->ephemeral() && ctx_.topology_changed) ctx_.topology_changed();
  if (ctx_.registration_changed) ctx_.registration_changed(false, name_, name);
  return true;
}

void Topic::delete_channel_if_unused(const std::string& name) {
  std::shared_ptr<Channel> channel;
  {
    std::lock_guard lock(mu_);
    auto it = channels_.find(name);
    if (it == channels_.end() || !it->second->ephemeral() || it->second->stats().clients > 0) {
      return;
    }
    channel = std::move(it->second);
    channels_.erase(it);
  }
  ctx_.log.info("TOPIC({}): deleting ephemeral channel {} (no clients left)", name_, name);
  channel->remove();
  if (ctx_.registration_changed) ctx_.registration_changed(false, name_, name);
}

void Topic::start() {
  std::lock_guard lock(mu_);
  started_ = true;
  start_drain_locked();
}

void Topic::pause() {
  std::lock_guard lock(mu_);
  paused_ = true;
}

void Topic::unpause() {
  std::lock_guard lock(mu_);
  paused_ = false;
  start_drain_locked();
}

bool Topic::paused() const {
  std::lock_guard lock(mu_);
  return paused_;
}

void Topic::set_ledger(std::shared_ptr<DeliveryLedger> ledger) {
  std::lock_guard lock(mu_);
  ledger_ = ledger;
  for (auto& [name, ch] : channels_) {
    if (ch->ephemeral()) continue;
    if (ledger && !ledger->has_channel(name)) ledger->channel_added(name, ch->paused());
    ch->set_ledger(ledger);
  }
}

std::error_code Topic::empty() {
  {
    std::lock_guard lock(mu_);
    if (ledger_) {
      // Gone without reaching a channel. (What waits in the disk queue is
      // not known here: a new leader may deliver it.)
      for (const Pending& p : backlog_) ledger_->dropped({&p.msg, 1});
    }
    backlog_.clear();
    backend_has_data_ = false;
  }
  return backend_ ? backend_->empty() : std::error_code{};
}

void Topic::remove() {
  std::map<std::string, std::shared_ptr<Channel>> channels;
  {
    std::lock_guard lock(mu_);
    exiting_ = true;
    channels.swap(channels_);
    backlog_.clear();
  }
  for (auto& [n, ch] : channels) ch->remove();
  if (backend_) {
    backend_->empty();
    backend_->remove();
  }
}

void Topic::close_for_shutdown() {
  std::vector<std::string> records;
  std::map<std::string, std::shared_ptr<Channel>> channels;
  {
    std::unique_lock lock(mu_);
    exiting_ = true;
    // A drain in progress finishes its batch into the (still open) channels
    // or puts it back; spills in flight land first.
    idle_cv_.wait(lock, [&] { return !draining_ && backend_writes_ == 0; });
    channels = channels_;
  }
  for (auto& [n, ch] : channels) ch->close_for_shutdown();
  {
    std::lock_guard lock(mu_);
    for (auto& p : backlog_) records.push_back(encode_record(QueuedMessage{p.msg, 0}));
    backlog_.clear();
  }
  if (!backend_) return;
  if (!records.empty()) {
    std::vector<std::string_view> views(records.begin(), records.end());
    if (auto ec = backend_->put_batch(views)) {
      ctx_.log.error("TOPIC({}): failed to flush {} messages to disk - {}", name_, records.size(),
                     ec.message());
    }
  }
  if (auto ec = backend_->close()) {
    ctx_.log.error("TOPIC({}): failed to close disk queue - {}", name_, ec.message());
  }
}

TopicStats Topic::stats() const {
  std::lock_guard lock(mu_);
  TopicStats s;
  s.backend_depth = backend_ ? backend_->depth() : 0;
  s.depth = static_cast<std::int64_t>(backlog_.size()) + s.backend_depth;
  s.message_count = message_count_;
  s.message_bytes = message_bytes_;
  s.dropped = dropped_count_;
  s.paused = paused_;
  return s;
}

stats::Topic Topic::snapshot(const std::string& channel_filter, bool include_clients) const {
  stats::Topic out;
  TopicStats s = stats();
  out.name = name_;
  out.depth = s.depth;
  out.backend_depth = s.backend_depth;
  out.message_count = s.message_count;
  out.message_bytes = s.message_bytes;
  out.dropped_count = s.dropped;
  const QueueSettings settings = this->settings();
  if (settings.message_ttl.count() > 0) {
    out.message_ttl = flags::format_go_duration(settings.message_ttl);
  }
  out.max_depth = settings.max_depth;
  if (settings.max_depth > 0) out.depth_policy = depth_policy_name(settings.depth_policy);
  out.paused = s.paused;
  auto all = channels();  // sorted by name (std::map)
  std::vector<const LatencyStream*> streams;
  for (const auto& ch : all) {
    if (ch->latency()) streams.push_back(ch->latency());
    const ChannelStats cs = ch->stats();
    out.zone_local_msg_count += cs.zone_local;
    out.region_local_msg_count += cs.region_local;
    out.global_msg_count += cs.global;
    if (!channel_filter.empty() && ch->name() != channel_filter) continue;
    out.channels.push_back(ch->snapshot(include_clients));
  }
  if (!ctx_.options.e2e_processing_latency_percentiles.empty()) {
    out.e2e = LatencyStream::merge(streams, Clock::now());
  }
  return out;
}

}  // namespace nsq::nsqd
