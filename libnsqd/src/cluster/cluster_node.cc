#include "cluster/cluster_node.h"

#include <algorithm>

#include "cluster/log_record.h"
#include "cluster/takeover.h"
#include "core/broker.h"
#include "nsq/message.h"

namespace nsq::nsqd::cluster {

ClusterNode::ClusterNode(etcd::Client etcd, const Options& o, std::string node_id,
                         std::string http_address, Broker& broker,
                         std::shared_ptr<spdlog::logger> log, LeadershipHook on_leadership)
    : broker_(broker),
      node_id_(std::move(node_id)),
      log_(log),
      on_leadership_(std::move(on_leadership)) {
  const auto lease_ttl = std::chrono::duration_cast<std::chrono::seconds>(o.cluster_lease_ttl);
  Replicator::Settings rs;
  rs.data_dir =
      o.data_path.empty() ? std::filesystem::path(".") : std::filesystem::path(o.data_path);
  rs.node_id = node_id_;
  rs.min_insync = o.min_insync_replicas;
  rs.lag_max = lease_ttl;
  rs.segment_bytes = static_cast<std::uint64_t>(o.max_bytes_per_file);
  rs.max_record = static_cast<std::size_t>(o.max_msg_size) + kMessageHeaderSize + kLogRecordHeader;
  max_record_ = rs.max_record;
  const auto lease_ms = std::chrono::duration_cast<std::chrono::milliseconds>(lease_ttl);
  rs.progress_interval = std::clamp<std::chrono::milliseconds>(
      lease_ms / 20, std::chrono::milliseconds(50), std::chrono::milliseconds(250));
  rs.save_interval = std::clamp<std::chrono::milliseconds>(
      lease_ms / 5, std::chrono::milliseconds(200), std::chrono::milliseconds(1000));
  rs.connect_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_connect_timeout);
  Replicator::Hooks rh;
  rh.set_isr = [this](const std::string& topic, std::uint32_t epoch, std::vector<std::string> isr) {
    coordinator_->set_isr(topic, epoch, std::move(isr));
  };
  rh.member = [this] { return coordinator_->member(); };
  rh.step_down = [this](const std::string& topic, std::uint32_t epoch) {
    coordinator_->step_down(topic, epoch);
  };
  replicator_ = std::make_unique<Replicator>(std::move(rs), std::move(rh), log);

  Coordinator::Settings cs;
  cs.cluster_name = o.cluster_name;
  cs.node_id = node_id_;
  cs.node = {node_id_, std::move(http_address), "1.3.0"};
  cs.replication_factor = o.default_replication_factor;
  cs.lease_ttl = lease_ttl;
  Coordinator::Hooks ch;
  ch.on_replica = [this](const std::string& topic) { broker_.get_or_create_topic(topic); };
  // Deleted on another node: gone here too (its replica log goes with the
  // roles, in the replicator).
  ch.on_gone = [this](const std::string& topic) { broker_.delete_topic(topic); };
  ch.on_roles = [this](const std::vector<Role>& roles) {
    replicator_->apply(roles);
    leadership_changed(roles);
  };
  coordinator_ =
      std::make_unique<Coordinator>(std::move(etcd), std::move(cs), std::move(log), std::move(ch));
}

ClusterNode::~ClusterNode() { stop(); }

// On the coordinator's thread, after the replicator knows the roles.
void ClusterNode::leadership_changed(const std::vector<Role>& roles) {
  std::map<std::string, std::uint32_t> led;
  for (const auto& r : roles) {
    if (r.leader) led.emplace(r.topic, r.epoch);
  }
  for (const auto& [topic, epoch] : led) {
    auto was = led_.find(topic);
    if (was != led_.end() && was->second == epoch) continue;
    if (was == led_.end() && on_leadership_) on_leadership_(topic, true);
    handovers_->submit([this, topic = topic, epoch = epoch] {
      auto handover = std::make_shared<const Replicator::Handover>(replicator_->handover(topic));
      if (!take_over(broker_, topic, *handover)) return;
      log_->info("TOPIC({}): delivering as leader at epoch {}", topic, epoch);
      replicator_->delivering(topic, epoch);
      // The backlog goes back in beside new publishes: a deep one does not
      // hold this topic's publishing, nor other topics' takeovers, back.
      replays_->submit([this, topic, epoch, handover] {
        const std::size_t queued = replay(broker_, topic, *handover, max_record_, *log_, [&] {
          return !stopping_ && replicator_->leads(topic, epoch);
        });
        log_->info("TOPIC({}): {} messages queued again from the replica log", topic, queued);
      });
    });
  }
  for (const auto& [topic, epoch] : led_) {
    if (led.count(topic)) continue;
    if (on_leadership_) on_leadership_(topic, false);
    handovers_->submit([this, topic = topic] { step_down(broker_, topic); });
  }
  led_ = std::move(led);
}

bool ClusterNode::registers(const std::string& topic) const {
  auto r = coordinator_->replication(topic);
  return !r || r->leader;
}

HttpApi::Cluster ClusterNode::http_hooks() {
  HttpApi::Cluster hooks;
  hooks.replication = [this](const std::string& topic) -> std::optional<stats::Replication> {
    auto r = coordinator_->replication(topic);
    if (!r) return std::nullopt;
    const char* role = r->leader ? "leader" : contains(r->replicas, node_id_) ? "follower" : "none";
    return stats::Replication{role,        r->epoch, r->leader_id,
                              r->replicas, r->isr,   replicator_->lag(topic)};
  };
  hooks.place_topic = [this](const std::string& topic, int replicas) {
    coordinator_->ensure_topic(topic, replicas);
  };
  return hooks;
}

void ClusterNode::start() {
  broker_.set_topic_hooks(
      {[this](const std::string& topic) { coordinator_->ensure_topic(topic); },
       [this](const std::string& topic) { coordinator_->forget_topic(topic); }});
  broker_.set_replication(replicator_.get());
  for (const auto& topic : broker_.topics()) {
    if (!topic->ephemeral()) coordinator_->ensure_topic(topic->name());
  }
  replicator_->start();
  coordinator_->start();
}

void ClusterNode::stop() {
  broker_.set_topic_hooks({});
  broker_.set_replication(nullptr);
  stopping_ = true;  // replays in progress end at their next batch
  coordinator_->stop();
  handovers_.reset();  // runs what is queued, then joins
  replays_.reset();
  replicator_->stop();
}

}  // namespace nsq::nsqd::cluster
