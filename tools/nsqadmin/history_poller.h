#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "history_sampler.h"
#include "options.h"

namespace spdlog {
class logger;
}

// nsqadmin's background sampling for its history: the pages only ask the
// cluster while someone looks, but a chart needs the hour before that too.
namespace nsq::admin {

class ClusterInfo;
class History;

// Asks the cluster (through ClusterInfo, as the API does) once per
// shape().interval on a thread of its own, and records what it saw.
//
// @par Thread Safety: start(), stop() and the destructor from one thread.
class HistoryPoller {
 public:
  // The options in force at each poll (PUT /config/nsqlookupd_http_addresses
  // may change the lookupds meanwhile).
  using OptionsFn = std::function<std::shared_ptr<const Options>()>;

  // cluster and history must outlive this object; log may be null.
  HistoryPoller(const ClusterInfo* cluster, History* history, OptionsFn options,
                std::shared_ptr<spdlog::logger> log);
  ~HistoryPoller();  // stop()
  HistoryPoller(const HistoryPoller&) = delete;
  HistoryPoller& operator=(const HistoryPoller&) = delete;

  void start();
  // Wakes the thread and joins it; a poll in progress finishes first (at
  // most about one upstream request timeout). Idempotent.
  void stop();

  // One poll at Unix time now_ms, on the caller's thread (tests; the
  // thread calls it too). False when no upstream answered.
  bool poll_once(std::int64_t now_ms);

 private:
  void run();

  const ClusterInfo* cluster_;
  History* history_;
  OptionsFn options_;
  std::shared_ptr<spdlog::logger> log_;
  HistorySampler sampler_;   // used by one poll at a time (the thread's)
  std::size_t refused_ = 0;  // series not kept at the last poll (logged when it changes)

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace nsq::admin
