#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "cluster/etcd_json.h"

// What cluster mode keeps in etcd (docs/replication.md, "Keys in etcd"), as
// values, with their JSON and the pure decisions taken on them. No I/O.
namespace nsq::nsqd::cluster {

// nodes/<node>: a live member (the key lives under the node's lease).
struct NodeInfo {
  std::string tcp_address;
  std::string http_address;
  std::string version;
};

// topics/<topic>: where a topic lives.
struct Placement {
  std::vector<std::string> replicas;  // node ids, the first leader first
  std::int64_t epoch = 0;
  std::string leader;
  std::vector<std::string> isr;  // in-sync replicas, the leader included
  // The id of the message at log offset 0: a message's id is this plus its
  // record's offset. Taken from the clock when the topic is created, as Go
  // nsqd's ids are, so a topic created again never repeats an id.
  std::uint64_t id_base = 0;

  bool operator==(const Placement&) const = default;
};

inline bool contains(const std::vector<std::string>& ids, const std::string& id) {
  for (const auto& i : ids) {
    if (i == id) return true;
  }
  return false;
}

std::string encode(const NodeInfo& node);
std::string encode(const Placement& placement);
// Refused: anything but an object, fields of the wrong type, invalid UTF-8
// (encode() never writes it), a placement without an epoch or a replica.
tl::expected<NodeInfo, std::string> decode_node(std::string_view json);
tl::expected<Placement, std::string> decode_placement(std::string_view json);

// The keys of one cluster (prefix "/<cluster-name>/").
struct Keys {
  std::string prefix;

  std::string node(std::string_view id) const { return prefix + "nodes/" + std::string(id); }
  std::string topic(std::string_view name) const { return prefix + "topics/" + std::string(name); }
  std::string leader(std::string_view topic) const {
    return prefix + "leaders/" + std::string(topic);
  }
};

// Everything under a cluster's prefix, read at one revision.
struct View {
  struct Topic {
    Placement placement;
    std::int64_t mod_revision = 0;  // for compare-and-swap
  };
  std::int64_t revision = 0;
  std::map<std::string, NodeInfo> nodes;       // live members by id
  std::map<std::string, Topic> topics;         // by name
  std::map<std::string, std::string> leaders;  // topic -> node holding leaders/<topic>
  std::vector<std::string> errors;             // values that did not decode, for the log

  // Whether `topic` has a live leader (its leaders/ key exists).
  bool led(const std::string& topic) const { return leaders.count(topic) != 0; }
};

// A node's part in a topic, from a view.
struct Role {
  std::string topic;
  bool leader = false;  // the node leads it
  std::uint32_t epoch = 0;
  std::string leader_id;    // empty while no node leads
  std::string leader_http;  // the leader's HTTP address (host:port), when known
  std::vector<std::string> replicas;
  std::vector<std::string> isr;
  std::uint64_t id_base = 0;
};

// The topics `node` replicates in `view`, with its part in each.
std::vector<Role> roles_of(const View& view, const std::string& node);

// The view from a range over the whole prefix; keys outside the known
// folders are ignored.
View read_view(const Keys& keys, const etcd::RangeResult& range);

// The replicas of a new topic created by `creator`: the creator first, then
// the live nodes leading the fewest topics (ties by id), `factor` in all at
// most (fewer when fewer nodes live; at least the creator).
std::vector<std::string> choose_replicas(const View& view, const std::string& creator, int factor);

}  // namespace nsq::nsqd::cluster
