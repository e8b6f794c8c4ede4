#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster_types.h"
#include "upstream.h"

namespace spdlog {
class logger;
}

// Gathers the cluster's state from the nsqlookupd and nsqd HTTP APIs and
// carries out admin actions on them, as Go's clusterinfo package does:
// every upstream is asked in parallel; when all of them fail the result is
// `fatal` (nsqadmin answers 502), when only some fail their errors are kept
// beside the data (nsqadmin answers 200 with a WARNING message).
//
// @par Thread Safety: every method may be called from many threads at once;
// each call blocks for at most about one upstream request timeout per step.
namespace nsq::admin {

using Addresses = std::vector<std::string>;

template <class T>
struct Gathered {
  T value{};
  std::vector<std::string> errors;   // the upstreams that failed, when others answered
  std::optional<std::string> fatal;  // "Failed to query any nsqd: ..." and the like
};

// Both kinds of errors of an action (value unused).
using Outcome = Gathered<bool>;

struct NsqdStats {
  std::vector<TopicStats> topics;  // one per (node, topic), sorted by host
  // Channels summed over nodes, keyed by channel name when one topic was
  // selected, else by "topic:channel".
  std::map<std::string, ChannelStats> channels;
  std::vector<std::string> draining;  // nodes that drain (nsq-cpp), in query order
};

class ClusterInfo {
 public:
  // log: must outlive this object; may be null.
  ClusterInfo(UpstreamTimeouts timeouts, std::shared_ptr<spdlog::logger> log);

  Gathered<std::vector<std::string>> lookupd_topics(const Addresses& lookupds) const;
  Gathered<std::vector<std::string>> lookupd_topic_channels(const std::string& topic,
                                                            const Addresses& lookupds) const;
  Gathered<std::vector<Producer>> lookupd_producers(const Addresses& lookupds) const;
  Gathered<std::vector<Producer>> lookupd_topic_producers(const std::string& topic,
                                                          const Addresses& lookupds) const;
  Gathered<std::vector<std::string>> nsqd_topics(const Addresses& nsqds) const;
  Gathered<std::vector<Producer>> nsqd_producers(const Addresses& nsqds) const;
  Gathered<std::vector<Producer>> nsqd_topic_producers(const std::string& topic,
                                                       const Addresses& nsqds) const;

  // From the lookupds when there are any, else from the nsqd list.
  Gathered<std::vector<std::string>> topics(const Addresses& lookupds,
                                            const Addresses& nsqds) const;
  Gathered<std::vector<Producer>> producers(const Addresses& lookupds,
                                            const Addresses& nsqds) const;
  Gathered<std::vector<Producer>> topic_producers(const std::string& topic,
                                                  const Addresses& lookupds,
                                                  const Addresses& nsqds) const;

  // /stats of each producer, optionally narrowed to a topic (and channel).
  // nsq-cpp's GET /channel/peek on each producer: (node, its "messages" as
  // JSON), nodes that do not answer (or are Go nsqd) left out as errors.
  Gathered<std::vector<std::pair<std::string, std::string>>> channel_peek(
      const std::vector<Producer>& producers, const std::string& topic, const std::string& channel,
      const std::string& state, int n) const;

  Gathered<NsqdStats> nsqd_stats(const std::vector<Producer>& producers, const std::string& topic,
                                 const std::string& channel, bool include_clients) const;

  // Actions. Creation goes to the lookupds (so a new topic shows everywhere
  // before any nsqd has it) and, for a channel, to the nsqd producing the
  // topic; with no lookupds, to the nsqd list.
  Outcome create_topic_channel(const std::string& topic, const std::string& channel,
                               const Addresses& lookupds, const Addresses& nsqds) const;
  Outcome delete_topic(const std::string& topic, const Addresses& lookupds,
                       const Addresses& nsqds) const;
  Outcome delete_channel(const std::string& topic, const std::string& channel,
                         const Addresses& lookupds, const Addresses& nsqds) const;
  // verb: "pause", "unpause" or "empty"; channel empty = the topic itself.
  Outcome topic_channel_action(const std::string& verb, const std::string& topic,
                               const std::string& channel, const Addresses& lookupds,
                               const Addresses& nsqds) const;
  // Tombstones `node` (broadcast_address:http_port) for `topic` in every
  // lookupd, then deletes the topic on that nsqd.
  Outcome tombstone_node_for_topic(const std::string& topic, const std::string& node,
                                   const Addresses& lookupds) const;

 private:
  void debug(const std::string& text) const;
  Gathered<std::vector<std::string>> lookupd_name_union(const Addresses& lookupds,
                                                        const std::string& target,
                                                        const char* field) const;
  std::vector<std::string> post_all(const Addresses& addresses, const std::string& path_query,
                                    const char* kind) const;

  UpstreamTimeouts timeouts_;
  std::shared_ptr<spdlog::logger> log_;
};

// Go's ErrList text: the errors joined by newlines.
std::string join_errors(const std::vector<std::string>& errors);

}  // namespace nsq::admin
