#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>

#include "cluster/ledger.h"
#include "cluster/replica_log.h"
#include "cluster/replication_wire.h"
#include "cluster/topology.h"
#include "core/replication.h"

namespace nsq::nsqd::cluster {

class Fetcher;

// The data path of cluster mode (docs/replication.md): each replicated
// topic's log, and
// - as leader: appends of publishes, the commit point (the smallest offset
//   fsynced on every in-sync replica), the publishes waiting for it, the
//   followers' fetches (answered at once when there are records, else held
//   until there are or their wait ends), and changes of the in-sync set;
// - as follower: a Fetcher per leader node that pulls records into the log.
//
// Thread safety: every member may be called from any thread. One thread of
// its own fsyncs the logs and keeps time (held fetches, lagging followers,
// publishes waiting too long); callbacks run there or on a fetcher's thread.
// Another saves the delivery progress.
class Replicator final : public Replication {
 public:
  struct Settings {
    std::filesystem::path data_dir;
    std::string node_id;
    int min_insync = 2;
    // A follower that has not caught up for this long leaves the in-sync
    // set (--cluster-lease-ttl); a publish waits at most twice this.
    std::chrono::milliseconds lag_max{5000};
    std::uint64_t segment_bytes = 104857600;
    std::size_t max_record = 1048576 + 64;
    std::chrono::milliseconds connect_timeout{1000};
    // How often a leader sends its delivery progress to each follower (what
    // a failover may deliver twice), and how often each replica saves it
    // (what a restart of all of them may).
    std::chrono::milliseconds progress_interval{250};
    std::chrono::milliseconds save_interval{1000};
  };
  struct Hooks {
    // Asks etcd to record `isr` as the topic's in-sync set at `epoch` (this
    // node leading); the result comes back through apply().
    std::function<void(const std::string& topic, std::uint32_t epoch, std::vector<std::string> isr)>
        set_isr;
    // Whether this node holds a live lease (Coordinator::member()).
    std::function<bool()> member;
    // Asks etcd to let another in-sync replica lead `topic` (this node
    // leading at `epoch` cannot fsync its log).
    std::function<void(const std::string& topic, std::uint32_t epoch)> step_down;
  };

  Replicator(Settings settings, Hooks hooks, std::shared_ptr<spdlog::logger> log);
  ~Replicator() override;
  Replicator(const Replicator&) = delete;
  Replicator& operator=(const Replicator&) = delete;

  void start();
  void stop();

  // The topics this node replicates, each time the coordinator reads the
  // cluster (topics missing from `roles` are no longer replicated here).
  void apply(const std::vector<Role>& roles);

  // Replication (core/replication.h).
  std::optional<Admission> admit(const std::string& topic,
                                 std::function<void(Admission)> done) override;
  std::string forward(const std::string& leader_http, const std::string& topic,
                      const std::vector<std::string>& bodies,
                      std::chrono::milliseconds defer) override;
  void replicate(const std::string& topic, std::uint32_t epoch,
                 std::span<const std::string_view> bodies, std::int64_t defer_until_ms,
                 std::function<void(Replicated)> done) override;

  // What a node that starts leading a topic needs to deliver what the
  // former leader had not (docs/replication.md, "Taking over"): the log,
  // its end now, and the delivery progress last known. Null log: not
  // replicated here.
  struct Handover {
    std::shared_ptr<ReplicaLog> log;
    std::shared_ptr<Ledger> ledger;
    std::uint64_t end = 0;
    TopicProgress progress;
  };
  Handover handover(const std::string& topic) const;
  // The channels of `topic` hold what they owe as leader at `epoch`:
  // publishes are admitted from now on.
  void delivering(const std::string& topic, std::uint32_t epoch);
  // Whether this node leads `topic` at `epoch`.
  bool leads(const std::string& topic, std::uint32_t epoch) const;

  void fetch(std::string_view body, FetchReply reply) override;

  // For /stats: per follower of a topic this node leads, the records of its
  // log it has not confirmed yet (estimated beyond the first 4 MiB).
  std::vector<std::pair<std::string, std::int64_t>> lag(const std::string& topic) const;

  // The follower side, for its Fetcher: the topics led by `leader_id`, as
  // fetch entries (its epoch, its log's last epoch and end).
  std::vector<wire::FetchTopic> followed(const std::string& leader_id) const;
  // Applies one fetch answer to a followed topic's log, written but not yet
  // fsynced; false when this node failed to (its disk: the fetcher waits
  // before it asks again).
  bool absorb(const std::string& leader_id, const wire::FetchAnswer& answer);
  // Fsyncs the logs of the topics led by `leader_id` (a fetcher's round);
  // false when one failed.
  bool sync_followed(const std::string& leader_id);
  // After a failed fsync (a fetcher's): cuts the logs of the topics led by
  // `leader_id` back to what they know durable, which the kernel may not
  // have kept past the failure; false when one could not be cut.
  bool cut_followed_to_durable(const std::string& leader_id);

 private:
  using Clock = std::chrono::steady_clock;
  using Done = std::function<void(std::error_code)>;

  struct Follower {
    std::uint64_t acked = 0;  // its log's end, fsynced there
    // The last time it had fsynced all this log held at its request before;
    // caught_up starts at the leader's epoch (a lag period to show up in),
    // synced only once it did.
    Clock::time_point caught_up{};
    Clock::time_point synced{};
    std::optional<std::uint64_t> end_at_last_request;  // this log's end then
    bool asked = false;                                // it asked since this node leads
    std::uint64_t progress_sent = 0;  // the ledger version it last got (+1; 0: none)
    Clock::time_point progress_at{};
  };
  struct Waiter {
    std::uint64_t begin, end;  // its records; committed once the commit point reaches end
    Clock::time_point deadline;
    std::vector<MessageRef> messages;
    std::function<void(Replicated)> done;
  };
  // A topic's files outside its log's appends: the progress saver writes
  // the state under mu unless removed; a deleted topic's files go under it
  // (taken after mu_, never before it).
  struct Files {
    std::mutex mu;
    bool removed = false;
  };
  struct Topic {
    std::shared_ptr<ReplicaLog> log;  // shared with a fetcher writing to it
    std::shared_ptr<Files> files = std::make_shared<Files>();
    // Held by a fetcher from its check that this node follows the topic to
    // the end of its write (taken after mu_).
    std::shared_ptr<std::mutex> follow_writer = std::make_shared<std::mutex>();
    std::shared_ptr<Ledger> ledger;   // shared with the broker's topic while leading
    std::uint64_t saved_version = 0;  // the ledger version in <topic>.replica.state
    Role role;
    // Leader side.
    std::uint32_t led_epoch = 0;  // the epoch this node began leading at
    std::uint64_t led_from = 0;   // its log's end then
    std::map<std::string, Follower> followers;
    std::uint64_t commit = 0;
    std::vector<Waiter> waiters;  // in end order
    bool unsynced = false;        // appended since the last fsync
    // The records of the last append while leading, from last_begin: what
    // a caught-up follower asks for next, answered without reading the log.
    std::uint64_t last_begin = 0;
    std::string last_records;
    // When an in-sync change was last asked and not seen applied yet.
    std::optional<Clock::time_point> isr_change_asked;
    std::uint32_t step_down_asked = 0;   // the epoch a step-down was asked at
    std::uint32_t delivering_epoch = 0;  // delivering() was told this epoch
  };
  struct HeldFetch {
    wire::FetchRequest request;
    FetchReply reply;
    Clock::time_point deadline;
  };
  struct AdmitWaiter {
    std::string topic;
    Clock::time_point deadline;
    std::function<void(Admission)> done;
  };

  // Callbacks collected under mu_, run after it is released.
  struct Later {
    std::vector<std::function<void()>> calls;
    void run() {
      for (auto& c : calls) c();
    }
  };

  void run();
  Topic* open_topic_locked(const std::string& name);
  void lead_locked(Topic& t, Later& later);
  void lose_leadership_locked(Topic& t, std::error_code why, Later& later);
  Admission admission_locked(const std::string& name) const;
  void advance_commit_locked(Topic& t, Later& later);
  void fail_waiter_locked(Topic& t, Waiter& w, std::error_code why, Later& later);
  void save_loop();
  void save_progress();
  void check_isr_locked(Topic& t, Clock::time_point now);
  std::vector<wire::FetchAnswer> answer_locked(const wire::FetchRequest& request,
                                               bool* any_records);
  void answer_held_locked(bool only_with_records, Clock::time_point now, Later& later);
  bool attach_progress_locked(const std::string& node, std::vector<wire::FetchAnswer>& answers,
                              Clock::time_point now);
  std::size_t insync_needed(const Topic& t) const;
  static bool taking_over(const Topic& t) {
    return t.role.leader && t.led_epoch == t.role.epoch && t.delivering_epoch != t.role.epoch;
  }

  const Settings settings_;
  const Hooks hooks_;
  const std::shared_ptr<spdlog::logger> log_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable stop_cv_;      // the saver's: only stop() notifies it
  bool stopping_ = false;                // guarded by mu_
  std::map<std::string, Topic> topics_;  // guarded by mu_
  std::vector<HeldFetch> held_;          // guarded by mu_
  std::vector<AdmitWaiter> admitting_;   // guarded by mu_
  std::map<std::string, std::unique_ptr<Fetcher>> fetchers_;  // guarded by mu_: by leader id
  // Fetchers of leaders no longer followed, asked to stop: a request to a
  // leader cut off may take seconds, which nothing waits for; the run thread
  // destroys them once finished.
  std::vector<std::unique_ptr<Fetcher>> retiring_;  // guarded by mu_
  bool work_ = false;  // guarded by mu_: a log to fsync or fetches to answer

  std::thread thread_;
  std::thread saver_;  // save_loop()
};

}  // namespace nsq::nsqd::cluster
