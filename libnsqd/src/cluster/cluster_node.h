#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "cluster/coordinator.h"
#include "cluster/etcd_client.h"
#include "cluster/replicator.h"
#include "core/worker_pool.h"
#include "http/http_api.h"
#include "nsqd/options.h"

namespace nsq::nsqd {
class Broker;
}

namespace nsq::nsqd::cluster {

// Cluster mode on one nsqd (docs/replication.md): the Coordinator (etcd) and
// the Replicator (the data path) wired to each other and to the Broker. The
// server builds one when --etcd-endpoints is set.
class ClusterNode {
 public:
  // Called (on the coordinator's thread) when this node starts or stops
  // leading a topic: only the leader registers it with nsqlookupd.
  using LeadershipHook = std::function<void(const std::string& topic, bool leading)>;

  // `node_id` is broadcast_address:tcp_port, `http_address` what followers
  // fetch from (broadcast_address:http_port).
  ClusterNode(etcd::Client etcd, const Options& options, std::string node_id,
              std::string http_address, Broker& broker, std::shared_ptr<spdlog::logger> log,
              LeadershipHook on_leadership);
  ~ClusterNode();
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // Whether this node registers `topic` with nsqlookupd: it leads it, or the
  // topic is not (yet) placed in the cluster.
  bool registers(const std::string& topic) const;

  // What the HTTP API shows and serves in cluster mode.
  HttpApi::Cluster http_hooks();

  // Places the topics the broker already has, then joins.
  void start();
  // Leaves the cluster (this node's leaderships end now), then stops
  // replicating. The broker no longer reaches this object afterwards.
  void stop();

 private:
  void leadership_changed(const std::vector<Role>& roles);

  Broker& broker_;
  const std::string node_id_;
  const std::shared_ptr<spdlog::logger> log_;
  std::size_t max_record_ = 0;
  std::unique_ptr<Replicator> replicator_;  // before coordinator_: its hooks call in
  std::unique_ptr<Coordinator> coordinator_;
  const LeadershipHook on_leadership_;
  // The coordinator thread's: the topics led at the last read, with their epoch.
  std::map<std::string, std::uint32_t> led_;
  // Takeovers and step-downs, one at a time in the order leadership changed.
  std::unique_ptr<WorkerPool> handovers_ = std::make_unique<WorkerPool>(1);
  // Replays of the log into a taken-over topic (they may take a while).
  std::unique_ptr<WorkerPool> replays_ = std::make_unique<WorkerPool>(2);
  std::atomic<bool> stopping_{false};
};

}  // namespace nsq::nsqd::cluster
