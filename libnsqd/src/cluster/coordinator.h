#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>

#include "cluster/etcd_client.h"
#include "cluster/topology.h"

namespace nsq::nsqd::cluster {

// A topic's replication as /stats shows it.
struct TopicReplication {
  bool leader = false;  // this node leads it
  std::int64_t epoch = 0;
  std::string leader_id;  // empty while no node leads
  std::vector<std::string> replicas;
  std::vector<std::string> isr;
};

// This node's side of the cluster in etcd (docs/replication.md): its
// membership lease, the placement of the topics it creates, the elections
// it runs for topics it replicates, and the last view of the cluster. One
// thread of its own does every etcd call, so nothing here blocks a caller.
//
// Thread safety: every member may be called from any thread.
class Coordinator {
 public:
  struct Settings {
    std::string cluster_name = "nsq";
    std::string node_id;  // broadcast_address:tcp_port
    NodeInfo node;
    int replication_factor = 3;
    std::chrono::seconds lease_ttl{5};
    std::string version;
  };
  // Called on the coordinator's thread, never under its lock.
  struct Hooks {
    // Each topic this node learns it holds a replica of (once per topic and start).
    std::function<void(const std::string& topic)> on_replica;
    // Each such topic once it is gone from the cluster (deleted).
    std::function<void(const std::string& topic)> on_gone;
    // After each read of the cluster: this node's part in every topic it
    // replicates (leader only while it is a member).
    std::function<void(const std::vector<Role>& roles)> on_roles;
  };

  Coordinator(etcd::Client client, Settings settings, std::shared_ptr<spdlog::logger> log,
              Hooks hooks);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  void start();
  // Revokes the lease (this node's leaderships end at once) and stops.
  void stop();

  // Asks for `topic` to exist in the cluster, with `replicas` replicas
  // (0: the default factor). Returns at once; the placement is made on the
  // coordinator's thread.
  void ensure_topic(const std::string& topic, int replicas = 0);
  // Asks for `topic` to leave the cluster (deleted on this node): every
  // replica drops it when it next reads the cluster. Returns at once.
  void forget_topic(const std::string& topic);

  // Asks etcd to record `isr` as the in-sync set of a topic this node leads
  // at `epoch` (a compare-and-swap; dropped if the topic moved on meanwhile).
  void set_isr(const std::string& topic, std::uint32_t epoch, std::vector<std::string> isr);
  // Asks etcd to let another in-sync replica lead a topic this node leads
  // at `epoch` (its disk fails): this node leaves the in-sync set and gives
  // up the topic's leader key, so it cannot run again until it caught up.
  // Dropped if the topic moved on meanwhile or no other replica is in sync.
  void step_down(const std::string& topic, std::uint32_t epoch);

  // The topic's replication as last read from etcd; nullopt when etcd has
  // no placement for it (yet).
  std::optional<TopicReplication> replication(const std::string& topic) const;

  const std::string& node_id() const noexcept { return settings_.node_id; }

  // Whether this node holds a lease it renewed within the TTL: a node that
  // is not a member must not acknowledge as a leader.
  bool member() const;

 private:
  using Clock = std::chrono::steady_clock;

  // The TTL in the clock's units: whole seconds divided by 3 or 5 would
  // round a 2 s TTL's periods down to nothing.
  Clock::duration lease_period() const { return settings_.lease_ttl; }
  void run();
  // One round: lease, then the view, creations and elections.
  void tick(Clock::time_point now);
  bool ensure_lease(Clock::time_point now);
  void keep_alive(Clock::time_point now);
  void refresh();
  // Puts `p` as the topic's placement with this node leading it (under its
  // lease), if nobody leads it and `guard` (the topic as read) still holds:
  // whether it did.
  tl::expected<bool, std::string> claim(const std::string& topic, const Placement& p,
                                        const etcd::Compare& guard);
  void create(const View& view, const std::string& topic, int replicas);
  bool remove(const std::string& topic);  // false: etcd did not take it
  void elect(const View& view, const std::string& topic);
  // The topic as `view` has it when this node leads it at `epoch`, else null.
  const View::Topic* led_here(const View& view, const std::string& topic,
                              std::uint32_t epoch) const;
  bool change_isr(const View& view, const std::string& topic, std::uint32_t epoch,
                  std::vector<std::string> isr);
  bool hand_over(const View& view, const std::string& topic, std::uint32_t epoch);
  void publish(View view);
  void warn(const std::string& what);

  const etcd::Client etcd_;
  const Settings settings_;
  const Keys keys_;
  const std::shared_ptr<spdlog::logger> log_;
  const Hooks hooks_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  bool poked_ = false;     // guarded by mu_: a creation is waiting
  std::map<std::string, std::pair<std::uint32_t, std::vector<std::string>>>
      to_set_isr_;                                     // guarded by mu_: topic -> (epoch, isr)
  std::map<std::string, std::uint32_t> to_step_down_;  // guarded by mu_: topic -> epoch
  std::map<std::string, int> to_create_;  // guarded by mu_: topic -> replicas (0 default)
  std::set<std::string> to_delete_;       // guarded by mu_
  View view_;                             // guarded by mu_
  etcd::LeaseId lease_ = 0;               // guarded by mu_
  Clock::time_point lease_renewed_{};     // guarded by mu_

  // The coordinator thread's own.
  Clock::time_point next_keepalive_{};
  Clock::time_point next_refresh_{};
  std::set<std::string> announced_;  // topics on_replica_ was called for
  std::string last_warning_;
  std::vector<std::string> reported_errors_;  // the view's, logged once

  std::thread thread_;
};

}  // namespace nsq::nsqd::cluster
