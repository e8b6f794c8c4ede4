#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <tl/expected.hpp>

#include "core/context.h"
#include "core/replication.h"
#include "core/topic.h"
#include "core/worker_pool.h"
#include "diskqueue/timer_thread.h"
#include "nsqd/options.h"

namespace nsq::nsqd {

// The broker's state: topics (and through them channels), the shared worker
// threads, health, and the nsqd.dat topology file. Everything protocol- and
// socket-related lives elsewhere; this is what TCP and HTTP handlers drive.
//
// Thread safety: all members may be called from any thread.
class Broker {
 public:
  Broker(Options options, std::shared_ptr<spdlog::logger> log);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  const Options& options() const noexcept { return options_; }
  spdlog::logger& log() const noexcept { return *log_; }
  // Blocking disk reads and nsqd.dat saves.
  WorkerPool& disk_pool() noexcept { return *disk_pool_; }
  // Work that may block for long and is not disk I/O: HTTP handlers, lookupd queries.
  WorkerPool& blocking_pool() noexcept { return *blocking_pool_; }
  // Every write to a disk queue (see DiskWriter).
  DiskWriter& disk_writer() noexcept { return disk_writer_; }
  // Cluster mode's replication (set before serving); null outside cluster mode.
  Replication* replication() const noexcept { return replication_.load(std::memory_order_acquire); }
  void set_replication(Replication* replication) noexcept {
    replication_.store(replication, std::memory_order_release);
  }

  // Reads nsqd.dat and creates what it lists (startup), as Go's
  // LoadMetadata: a missing file is a fresh start; a file that cannot be
  // read (even for want of permission) or that Go's json.Unmarshal refuses
  // is an error naming the file, and the file is left as it is. Does not
  // write nsqd.dat: the caller saves next, as Go's PersistMetadata.
  tl::expected<void, std::string> load_metadata();
  // Writes nsqd.dat now (atomically).
  std::error_code save_metadata();

  // Where a new topic asks lookupd for its channels before it delivers:
  // in the background (callers on an I/O thread: messages published
  // meanwhile wait in the topic), or on the calling thread before returning,
  // as Go's GetTopic (HTTP handlers, which run on the blocking pool: what
  // the request publishes then reaches every channel before it is answered).
  enum class ChannelQuery { in_background, on_this_thread };
  // Creates the topic if needed; nullptr while shutting down.
  std::shared_ptr<Topic> get_or_create_topic(const std::string& name,
                                             ChannelQuery query = ChannelQuery::in_background);
  std::shared_ptr<Topic> find_topic(const std::string& name) const;
  std::vector<std::shared_ptr<Topic>> topics() const;
  bool delete_topic(const std::string& name);

  // A client left a channel: ephemeral channels and topics without users go.
  void client_left(const std::string& topic, const std::string& channel);

  ClientId next_client_id() noexcept { return next_client_id_.fetch_add(1) + 1; }

  // Hooks to nsqlookupd (set before serving): registration events, and the
  // channels lookupd knows for a topic created at runtime (nullopt: none
  // known yet). Without them topics start at once.
  struct LookupHooks {
    std::function<void(bool, const std::string&, const std::string&)> registration_changed;
    std::function<std::optional<std::vector<std::string>>(const std::string&)> channels_of;
    std::function<bool()> configured;  // any lookupd address set
  };
  void set_lookup_hooks(LookupHooks hooks);
  // Cluster mode: called with each durable topic this node creates or
  // deletes (set before serving; empty: none).
  struct TopicHooks {
    std::function<void(const std::string&)> created;
    std::function<void(const std::string&)> deleted;
  };
  void set_topic_hooks(TopicHooks hooks);

  // Healthy unless the last disk write failed ("OK" or "NOK - <error>").
  bool healthy() const;
  std::string health() const;
  void report_disk_result(std::error_code ec);

  // Draining (--sigterm=drain, PUT /config/drain; docs/operations.md):
  // clients may no longer publish nor create topics or channels; consumers
  // go on until drained() and nsqd exits. One way: a drain is not undone.
  bool draining() const noexcept { return draining_.load(std::memory_order_relaxed); }
  // False when already draining.
  bool start_draining();
  // Every topic and channel empty, nothing in flight or deferred.
  bool drained() const;

  // Clean shutdown after the connections are gone: every queue's memory,
  // in-flight and deferred messages to disk, nsqd.dat written.
  void close();

 private:
  std::shared_ptr<diskqueue::DiskQueue> open_backend(const std::string& queue_name);
  void publish_dead_letters(const std::string& topic_name, std::vector<std::string> bodies,
                            std::function<void(std::error_code)> done);
  void apply_stored_settings(const std::string& path, std::string_view text);
  void schedule_metadata_save();

  const Options options_;
  const std::shared_ptr<spdlog::logger> log_;
  // Stopped first in the destructor (deadlines, then the pools' queued
  // jobs), while everything their jobs touch is still alive.
  std::unique_ptr<WorkerPool> disk_pool_;
  std::unique_ptr<WorkerPool> blocking_pool_;
  std::unique_ptr<diskqueue::TimerThread> deadlines_;
  std::shared_ptr<diskqueue::TimerThread> disk_syncs_;
  DiskWriter disk_writer_;
  std::atomic<Replication*> replication_{nullptr};
  std::atomic<bool> draining_{false};
  QueueContext ctx_;

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Topic>> topics_;  // guarded by mu_
  bool closing_ = false;                                  // guarded by mu_
  bool loading_ = false;                                  // guarded by mu_
  std::atomic<ClientId> next_client_id_{0};

  std::mutex metadata_mu_;  // serialises nsqd.dat writes
  // At most one background save is queued or running; changes made while it
  // runs set save_again_, and it saves once more. So a burst of creations
  // costs a few saves, and never ties up more than one disk-pool thread.
  std::mutex save_state_mu_;
  bool save_running_ = false;  // guarded by save_state_mu_
  bool save_again_ = false;    // guarded by save_state_mu_

  mutable std::mutex hooks_mu_;
  LookupHooks hooks_;       // guarded by hooks_mu_
  TopicHooks topic_hooks_;  // guarded by hooks_mu_

  mutable std::mutex health_mu_;
  std::string health_error_;  // guarded by health_mu_; empty = healthy
};

}  // namespace nsq::nsqd
