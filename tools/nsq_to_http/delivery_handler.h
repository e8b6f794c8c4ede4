#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/host_pool.h"
#include "common/timer_metrics.h"
#include "http_publisher.h"
#include "nsq/client/consumer.h"
#include "nsq_to_http_options.h"

namespace nsq::tools::to_http {

// nsq_to_http's message handler: samples (--sample), picks the address(es)
// by mode, sends with HttpPublisher. Returning an error makes the consumer
// REQ the message with backoff; success FINs it (also for a message left
// out by sampling).
//
// @par Thread Safety: handle() runs on the consumer's -n handler threads.
class DeliveryHandler {
 public:
  // publisher must outlive the handler.
  DeliveryHandler(const NsqToHttpOptions& options, const HttpPublisher* publisher);

  client::HandlerResult handle(client::Message& message);

 private:
  bool sampled_out();
  TimerMetrics& metrics_for(std::size_t index) { return *per_address_[index]; }

  const DeliveryMode mode_;
  const double sample_;
  const std::vector<std::string> addresses_;
  const HttpPublisher* publisher_;
  HostPool host_pool_;
  std::atomic<std::uint64_t> counter_{0};
  std::vector<std::unique_ptr<TimerMetrics>> per_address_;
  TimerMetrics aggregate_;
};

}  // namespace nsq::tools::to_http
