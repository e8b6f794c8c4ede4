#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cluster_types.h"
#include "history.h"

// Turns one poll of the cluster into history samples: per topic, channel and
// node, the gauges as nsqd reports them and the rates of its counters.
namespace nsq::admin {

// @par Thread Safety: none; the poller's thread alone uses it.
class HistorySampler {
 public:
  using Sample = std::pair<History::Key, History::Values>;

  // per_node: each nsqd's topics (TopicStats.node set), as ClusterInfo's
  // nsqd_stats gathers them; nodes: every node that answered, so one
  // without topics still gets a sample (0 clients). t_ms: Unix ms of the poll.
  //
  // Rates are taken per node and per counter, then summed: a node missing
  // from one poll or restarted (its counter went back) leaves its part out
  // for that poll instead of making the sum jump.
  std::vector<Sample> sample(const std::vector<TopicStats>& per_node,
                             const std::vector<std::string>& nodes, std::int64_t t_ms);

 private:
  struct Counts {
    std::int64_t t_ms = 0;
    std::uint64_t messages = 0;
    std::uint64_t requeues = 0;
    std::uint64_t timeouts = 0;
  };
  struct Rates {
    double messages = 0;
    double requeues = 0;
    double timeouts = 0;
    bool known = false;  // false on a node's first poll or after a reset
  };
  // (node, topic, channel or "" for the topic itself)
  using CountKey = std::tuple<std::string, std::string, std::string>;

  Rates rates(const CountKey& key, const Counts& now, std::map<CountKey, Counts>* next) const;

  std::map<CountKey, Counts> previous_;
};

// "e2e_p99", "e2e_p99.9": the column of an end-to-end latency quantile.
std::string latency_column(double quantile);

}  // namespace nsq::admin
