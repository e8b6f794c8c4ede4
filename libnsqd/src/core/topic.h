#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/channel.h"
#include "core/context.h"
#include "core/delivery_ledger.h"
#include "core/message.h"
#include "core/peek.h"
#include "nsq/id_generator.h"

namespace nsq::nsqd {

struct TopicStats {
  std::int64_t depth = 0, backend_depth = 0;
  std::uint64_t message_count = 0, message_bytes = 0;
  std::uint64_t dropped = 0;  // by max_depth's drop_oldest
  bool paused = false;
};

// A named stream. Publishing assigns ids and hands each message to every
// channel (a pointer copy, never the body). While the topic has no channel,
// or is paused, messages wait in its own memory queue and disk queue; a drain
// job on the disk pool moves that backlog into the channels when possible.
//
// Thread safety: all members may be called from any thread; one mutex guards
// the bookkeeping and is never held while calling into a channel or the disk.
class Topic : public std::enable_shared_from_this<Topic> {
 public:
  // A topic not `started` holds what is published until start(): nsqd first
  // creates the channels lookupd knows for it, so none misses a message.
  Topic(std::string name, std::int64_t node_id, QueueContext& ctx,
        std::shared_ptr<diskqueue::DiskQueue> backend, bool started = true);
  void start();

  const std::string& name() const noexcept { return name_; }
  bool ephemeral() const noexcept { return ephemeral_; }

  // errc::exiting when the topic is being deleted or closed.
  std::error_code publish(std::span<const std::string_view> bodies, std::chrono::milliseconds defer,
                          DiskWrites& spill);

  // Cluster mode: messages that already have their ids (from the replica
  // log, once committed there, so a consumer never sees a message a
  // failover could lose).
  std::error_code publish_prepared(std::span<const MessageRef> messages,
                                   std::chrono::milliseconds defer, DiskWrites& spill);
  // Cluster mode, while this node leads the topic: told what reaches the
  // channels and what they finish; channels it does not know yet are
  // added to it. Null detaches it.
  void set_ledger(std::shared_ptr<DeliveryLedger> ledger);

  std::shared_ptr<Channel> get_or_create_channel(const std::string& name, bool* created = nullptr);
  // Its message TTL, which each of its channels applies too, and its bound
  // (docs/operations.md).
  void set_settings(QueueSettings settings);
  QueueSettings settings() const;
  // Copies of up to n of the messages the topic itself holds (no channel
  // yet, or paused): memory, then its disk queue (core/peek.h).
  std::vector<PeekedMessage> peek(std::size_t n) const;
  // Before a publish of `n` messages: errc::full when the topic or one of
  // its channels is bounded with the reject policy and would go past it.
  std::error_code admit(std::size_t n) const;
  std::shared_ptr<Channel> find_channel(const std::string& name) const;
  std::vector<std::shared_ptr<Channel>> channels() const;
  // Removes the channel: its clients are disconnected, its files deleted.
  bool delete_channel(const std::string& name);
  // Deletes an ephemeral channel that has no client left.
  void delete_channel_if_unused(const std::string& name);
  std::size_t channel_count() const;

  void pause();
  void unpause();
  bool paused() const;

  std::error_code empty();
  void remove();
  void close_for_shutdown();

  TopicStats stats() const;
  // channel_filter: only that channel (empty: all).
  stats::Topic snapshot(const std::string& channel_filter, bool include_clients) const;

 private:
  struct Pending {
    MessageRef msg;
    std::chrono::milliseconds defer{0};
  };

  MessageHeader next_header_locked(std::int64_t& now);
  template <class Describe, class Keep>
  std::error_code publish_each(std::size_t n, std::chrono::milliseconds defer, DiskWrites& spill,
                               Describe describe, Keep keep);
  bool can_fan_out_locked() const {
    return started_ && !channels_.empty() && !paused_ && !exiting_;
  }
  void start_drain_locked();
  void drain();
  void fan_out(const std::vector<std::shared_ptr<Channel>>& channels,
               std::span<const MessageRef> messages, std::chrono::milliseconds defer,
               DiskWrites& spill);

  const std::string name_;
  const bool ephemeral_;
  QueueContext& ctx_;
  const std::shared_ptr<diskqueue::DiskQueue> backend_;  // null when ephemeral

  mutable std::mutex mu_;
  IdGenerator ids_;                                           // guarded by mu_
  std::map<std::string, std::shared_ptr<Channel>> channels_;  // guarded by mu_
  std::deque<Pending> backlog_;                               // guarded by mu_
  bool backend_has_data_ = false;                             // guarded by mu_
  int backend_writes_ = 0;                  // guarded by mu_: spills not landed yet
  bool draining_ = false;                   // guarded by mu_
  std::condition_variable idle_cv_;         // draining_ or backend_writes_ dropped
  bool paused_ = false;                     // guarded by mu_
  QueueSettings settings_;                  // guarded by mu_
  std::uint64_t dropped_count_ = 0;         // guarded by mu_: drop_oldest
  bool started_ = true;                     // guarded by mu_
  bool exiting_ = false;                    // guarded by mu_
  std::uint64_t message_count_ = 0;         // guarded by mu_
  std::uint64_t message_bytes_ = 0;         // guarded by mu_
  std::shared_ptr<DeliveryLedger> ledger_;  // guarded by mu_
};

}  // namespace nsq::nsqd
