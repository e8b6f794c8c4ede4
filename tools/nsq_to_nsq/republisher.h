#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/host_pool.h"
#include "common/timer_metrics.h"
#include "json_filter.h"
#include "nsq/client/consumer.h"
#include "nsq/client/producer.h"
#include "nsq_to_nsq_options.h"

namespace nsq::tools::to_nsq_bridge {

// nsq_to_nsq's message handler: filters (JsonFilter), picks one destination
// (round-robin or HostPool), publishes asynchronously and answers the
// source message from the publish callback: FIN on success, REQ with
// backoff on failure. Timings go to per-destination and aggregate
// TimerMetrics.
//
// @par Thread Safety: handle() runs on any number of consumer handler
// threads; the callbacks on the producers' I/O threads. Producers are owned
// by the caller and must outlive every callback (stop consumers first).
class Republisher {
 public:
  // producers[i] publishes to destinations[i].
  Republisher(const NsqToNsqOptions& options, std::vector<client::Producer*> producers);

  // destination_topic: where this message goes (the source topic or
  // --destination-topic).
  client::HandlerResult handle(client::Message& message, const std::string& destination_topic);

 private:
  std::size_t pick_destination();
  void on_published(client::Message message, std::size_t destination,
                    TimerMetrics::Clock::time_point start, const client::PublishResult& result);

  const DestinationMode mode_;
  const JsonFilter filter_;
  const std::vector<client::Producer*> producers_;
  HostPool host_pool_;
  std::atomic<std::uint64_t> counter_{0};
  std::vector<std::unique_ptr<TimerMetrics>> per_destination_;
  TimerMetrics aggregate_;
};

}  // namespace nsq::tools::to_nsq_bridge
