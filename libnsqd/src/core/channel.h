#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/context.h"
#include "core/deadline_queue.h"
#include "core/deferred_file.h"
#include "core/delivery_ledger.h"
#include "core/id_table.h"
#include "core/locality.h"
#include "core/message.h"
#include "core/peek.h"
#include "core/queue_settings.h"
#include "core/read_commits.h"
#include "nsq/stats/model.h"
#include "stats/quantile.h"

namespace nsq::nsqd {

// What a channel needs of a subscribed client connection. Both calls are
// thread-safe and must return quickly (they post to the client's thread).
class Subscriber {
 public:
  virtual ~Subscriber() = default;
  // Messages may be available, or the client's in-flight count dropped.
  virtual void wake() = 0;
  // The channel (or nsqd) is going away: close the connection.
  virtual void close_for_delete() = 0;
  // For /stats; in_flight_count is filled in by the channel.
  virtual stats::Client stats() const { return {}; }
  // Has published at least once (a "producer" in /stats).
  virtual bool is_producer() const { return false; }
};

struct ChannelStats {
  std::int64_t depth = 0, backend_depth = 0, in_flight = 0, deferred = 0;
  std::uint64_t message_count = 0, requeue_count = 0, timeout_count = 0;
  std::uint64_t zone_local = 0, region_local = 0, global = 0;  // topology-aware deliveries
  // Left without a FIN: past their TTL; sent to the dead-letter topic;
  // dropped for want of one (docs/operations.md).
  std::uint64_t expired = 0, dead_lettered = 0, discarded = 0;
  std::uint64_t dropped = 0;  // by max_depth's drop_oldest
  std::size_t clients = 0;
  bool paused = false;
};

// A consumer group of a topic: every message of the topic reaches every
// channel; inside a channel each message goes to one client.
//
// Holds a memory queue (mem-queue-size) backed by a disk queue for overflow,
// the in-flight set (deadline heap) and the deferred set. Clients pull:
// take() hands a client as many messages as its RDY window allows; a client
// that could take more is remembered and woken by the next put.
//
// Thread safety: all members may be called from any thread; one mutex guards
// the bookkeeping and is never held across I/O or a call into a client.
class DeferredJournal;

class Channel : public std::enable_shared_from_this<Channel> {
 public:
  // `deferred_journal`: --sync-publish only (DeferredJournal), else null.
  Channel(std::string topic_name, std::string name, QueueContext& ctx,
          std::shared_ptr<diskqueue::DiskQueue> backend,
          std::shared_ptr<diskqueue::DiskQueue> deferred_journal = nullptr);
  ~Channel();

  const std::string& name() const noexcept { return name_; }
  const std::string& topic_name() const noexcept { return topic_name_; }
  bool ephemeral() const noexcept { return ephemeral_; }

  // Adds published messages (defer > 0: held until then). Overflow beyond the
  // memory queue is appended to `spill` (dropped if ephemeral).
  void put(std::span<const MessageRef> messages, std::chrono::milliseconds defer,
           DiskWrites& spill);

  enum class AddResult { ok, too_many_consumers, exiting };
  AddResult add_client(ClientId id, std::weak_ptr<Subscriber> subscriber,
                       Locality locality = Locality::global);
  // Returns the number of clients left.
  std::size_t remove_client(ClientId id);

  // Moves up to min(rdy - in_flight(client), max_count) messages into flight
  // for the client (attempts + 1, deadline now + msg_timeout) into `out`.
  void take(ClientId id, std::int64_t rdy, std::int64_t max_count, int sample_rate,
            std::chrono::nanoseconds msg_timeout, std::vector<QueuedMessage>& out);

  enum class AckResult { ok, not_in_flight, not_owner };
  AckResult finish(ClientId id, const MessageId& msg);
  // finish() for each of `msgs`, under one lock; results[i] is msgs[i]'s.
  void finish_many(ClientId id, std::span<const MessageId> msgs, std::span<AckResult> results);
  AckResult requeue(ClientId id, const MessageId& msg, std::chrono::milliseconds delay,
                    DiskWrites& spill);
  AckResult touch(ClientId id, const MessageId& msg, std::chrono::nanoseconds msg_timeout);

  void pause();
  void unpause();
  bool paused() const;

  // Dead letters and TTL (docs/operations.md); the topic's TTL applies too.
  void set_settings(QueueSettings settings);
  QueueSettings settings() const;
  void set_topic_ttl(std::chrono::milliseconds ttl);
  // Copies of up to n (at most kMaxPeek) messages in `state`, nothing moved
  // (core/peek.h): queued ones from memory and the disk queue, in-flight and
  // deferred ones with when they are due, earliest first.
  std::vector<PeekedMessage> peek(PeekState state, std::size_t n) const;
  // max_depth with the reject policy: `n` more messages would not fit.
  bool would_reject(std::int64_t n) const;

  // Cluster mode (Topic::set_ledger): told what this channel finishes.
  void set_ledger(std::shared_ptr<DeliveryLedger> ledger);

  // Drops everything queued, in flight and deferred (HTTP /channel/empty).
  std::error_code empty();
  // Disconnects the clients and removes the disk queue's files.
  void remove();
  // Due times kept over a restart name messages in the disk queue: reading
  // them back now shows them deferred (in /stats and peek) before any
  // consumer makes the channel read its queue (as far as one refill goes:
  // behind a deep backlog they wait for it to drain).
  void read_back_deferred();
  // Clean shutdown: memory, in-flight and deferred messages go to the disk
  // queue (deferred ones with their due times in a side file), which is then closed.
  void close_for_shutdown();

  ChannelStats stats() const;
  stats::Channel snapshot(bool include_clients) const;
  // FIN latency stream; null unless --e2e-processing-latency-percentile is set.
  const LatencyStream* latency() const noexcept { return e2e_.get(); }

 private:
  struct InFlight {
    QueuedMessage msg;
    ClientId client = 0;
    Clock::time_point deadline;
    Clock::time_point delivered;
    // in_flight_deadlines_'s
    InFlight* prev = nullptr;
    InFlight* next = nullptr;
    std::size_t heap_index = 0;
    std::uint8_t lane = 0;
  };
  struct Deferred {
    Clock::time_point due;
    QueuedMessage msg;
    bool operator>(const Deferred& o) const { return due > o.due; }
  };
  struct Slot {
    std::weak_ptr<Subscriber> subscriber;
    std::int64_t in_flight = 0;
    bool waiting = false;  // wanted more than there was: wake on the next put
    Locality locality = Locality::global;
    std::int64_t rdy = 0;  // as of its last take()
    // Topology-aware consumption: messages handed to this consumer alone,
    // taken before the shared queues.
    std::deque<QueuedMessage> handoff;
  };
  struct IdHash {
    std::size_t operator()(const MessageId& id) const noexcept;
  };

  AckResult finish_locked(ClientId id, const MessageId& msg);
  void enqueue_locked(QueuedMessage m, DiskWrites& spill);
  // channel_dead_letters.cc
  struct DeadLetters {
    std::string topic;
    std::vector<QueuedMessage> messages;  // durable_: released once written there
  };
  void take_collecting(ClientId id, std::int64_t rdy, std::int64_t max_count, int sample_rate,
                       std::chrono::nanoseconds msg_timeout, std::vector<QueuedMessage>& out,
                       std::vector<std::shared_ptr<Subscriber>>& wake, DeadLetters& letters);
  std::chrono::nanoseconds ttl_locked() const;
  void leave_locked(QueuedMessage m, bool expired, DeadLetters& out);
  bool exhausted_locked(const QueuedMessage& m) const;
  // channel_bounds.cc
  std::int64_t depth_locked() const;
  void trim_locked();
  void send_dead_letters(DeadLetters letters);
  // channel_topology.cc
  bool hand_off_locked(QueuedMessage& m);
  void take_back_locked(Slot& slot);
  void count_delivered_locked(Locality locality, std::int64_t n);
  void spill_locked(const QueuedMessage& m, DiskWrites& spill);
  // --sync-publish: a message that came from disk is done (FIN'd, or dropped
  // by sampling or as a duplicate): its record may be committed.
  void release_locked(const QueuedMessage& m);
  void commit_reads();
  void collect_waiting_locked(std::vector<std::shared_ptr<Subscriber>>& out);
  void arm_deadline_locked(Clock::time_point when);
  void on_deadline();
  void process_deadlines(Clock::time_point now);
  void start_refill_locked();
  void load_deferred_times();
  std::vector<deferred_file::Entry> due_times_locked() const;
  void remove_deferred_file();
  void journal_locked(std::span<const MessageId> ids, Clock::time_point due, DiskWrites& spill);
  void compact_journal();
  void refill();
  void account_spill_locked(DiskWrites& spill, std::size_t from);
  static void wake_all(const std::vector<std::shared_ptr<Subscriber>>& subs);

  const std::string topic_name_;
  const std::string name_;
  const bool ephemeral_;
  QueueContext& ctx_;
  const std::shared_ptr<diskqueue::DiskQueue> backend_;  // null when ephemeral
  const std::unique_ptr<LatencyStream> e2e_;             // internally locked
  // --sync-publish with a disk queue: every message goes through the disk
  // queue (fsynced before PUB's OK) and its record is committed on FIN.
  const bool durable_;
  // --enable-experiment=topology-aware-consumption with a zone or region set
  // (not with durable_: there every message is read back from disk).
  const bool topology_aware_;

  mutable std::mutex mu_;
  std::deque<QueuedMessage> memory_;  // guarded by mu_
  // A refill starts when fewer read-ahead messages than this are left.
  static constexpr std::size_t kRefillLowWater = 64;
  std::deque<QueuedMessage> from_disk_;  // guarded by mu_: read ahead from backend_
  IdTable<InFlight> in_flight_;          // guarded by mu_
  DeadlineQueue<InFlight, Clock::duration> in_flight_deadlines_;                   // guarded by mu_
  std::priority_queue<Deferred, std::vector<Deferred>, std::greater<>> deferred_;  // guarded by mu_
  std::unordered_map<ClientId, Slot> clients_;                                     // guarded by mu_
  std::vector<ClientId> local_clients_;     // guarded by mu_: zone or region locality
  std::size_t next_local_ = 0;              // guarded by mu_: round-robin start
  std::int64_t handed_off_ = 0;             // guarded by mu_: in the slots' handoff
  std::uint64_t zone_local_count_ = 0;      // guarded by mu_
  std::uint64_t region_local_count_ = 0;    // guarded by mu_
  std::uint64_t global_count_ = 0;          // guarded by mu_
  QueueSettings settings_;                  // guarded by mu_
  std::chrono::milliseconds topic_ttl_{0};  // guarded by mu_
  std::uint64_t expired_count_ = 0;         // guarded by mu_
  std::uint64_t dead_letter_count_ = 0;     // guarded by mu_
  std::uint64_t discarded_count_ = 0;       // guarded by mu_
  std::uint64_t dropped_count_ = 0;         // guarded by mu_: drop_oldest
  // guarded by mu_: drop_oldest's excess still in the disk queue, dropped
  // as the next refills read it.
  std::int64_t drop_debt_ = 0;
  bool paused_ = false;               // guarded by mu_
  bool exiting_ = false;              // guarded by mu_
  bool refill_running_ = false;       // guarded by mu_
  int pending_spills_ = 0;            // guarded by mu_: writes not landed yet
  std::condition_variable idle_cv_;   // refill_running_ or pending_spills_ dropped
  std::int64_t disk_pending_ = 0;     // guarded by mu_: records believed in backend_
  std::uint64_t disk_write_seq_ = 0;  // guarded by mu_: bumped after each spill lands
  Clock::time_point armed_until_ = Clock::time_point::max();  // guarded by mu_
  diskqueue::TimerThread::TaskId deadline_task_ = 0;          // guarded by mu_
  std::uint64_t message_count_ = 0;                           // guarded by mu_
  std::uint64_t requeue_count_ = 0;                           // guarded by mu_
  std::uint64_t timeout_count_ = 0;                           // guarded by mu_
  std::minstd_rand rng_{std::random_device{}()};              // guarded by mu_
  std::shared_ptr<DeliveryLedger> ledger_;                    // guarded by mu_
  // durable_ only, all guarded by mu_:
  ReadCommits read_commits_;
  std::optional<diskqueue::ReadToken> pending_commit_;  // the furthest done, not yet committed
  bool commit_scheduled_ = false;
  // DPUB'd messages on their way through the disk queue: delivered not
  // before this time once read back (the delay itself is in journal_).
  std::unordered_map<MessageId, Clock::time_point, IdHash> deferred_due_;
  const std::unique_ptr<DeferredJournal> journal_;  // durable_ only
  std::size_t journal_lines_ = 0;                   // guarded by mu_: since its last compaction
  bool journal_compacting_ = false;                 // guarded by mu_
};

}  // namespace nsq::nsqd
