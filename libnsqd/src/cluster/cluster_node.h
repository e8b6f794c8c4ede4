#pragma once

#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "cluster/coordinator.h"
#include "cluster/etcd_client.h"
#include "cluster/replicator.h"
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
  // `node_id` is broadcast_address:tcp_port, `http_address` what followers
  // fetch from (broadcast_address:http_port).
  ClusterNode(etcd::Client etcd, const Options& options, std::string node_id,
              std::string http_address, Broker& broker, std::shared_ptr<spdlog::logger> log);
  ~ClusterNode();
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // What the HTTP API shows and serves in cluster mode.
  HttpApi::Cluster http_hooks();

  // Places the topics the broker already has, then joins.
  void start();
  // Leaves the cluster (this node's leaderships end now), then stops
  // replicating. The broker no longer reaches this object afterwards.
  void stop();

 private:
  Broker& broker_;
  const std::string node_id_;
  std::unique_ptr<Replicator> replicator_;  // before coordinator_: its hooks call in
  std::unique_ptr<Coordinator> coordinator_;
};

}  // namespace nsq::nsqd::cluster
