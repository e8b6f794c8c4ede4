#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lookupd_query.h"
#include "nsq/client/config.h"

namespace spdlog {
class logger;
}

namespace nsq::client {

// go-nsq's lookupd loop, on a thread of its own because the HTTP queries
// block: one query at once when started, then after a random delay of up to
// jitter x interval, every interval, and whenever recheck() asks. Each
// query asks one lookupd (round-robin), trying the next on failure (3 tries
// at most), and hands the producers' addresses to `found`.
//
// @par Thread Safety: all members from any thread but the poller's own;
// `found` runs on the poller's thread.
class LookupdPoller {
 public:
  using Found = std::function<void(std::vector<std::string> addresses)>;

  // config and log must outlive the poller.
  LookupdPoller(std::string topic, const Config& config, spdlog::logger& log, Found found);
  ~LookupdPoller();
  LookupdPoller(const LookupdPoller&) = delete;
  LookupdPoller& operator=(const LookupdPoller&) = delete;

  // Adds an endpoint; false if it is there already. Starts the thread on the first.
  bool add(const LookupdEndpoint& endpoint);
  void recheck();
  // Asks the thread to end after its current query; does not wait.
  void request_stop();
  // request_stop(), then joins the thread.
  void stop();

 private:
  void run();
  void query();

  const std::string topic_;
  const Config& config_;
  spdlog::logger& log_;
  Found found_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<LookupdEndpoint> endpoints_;  // guarded by mu_
  std::size_t next_ = 0;                    // guarded by mu_
  bool recheck_ = false;                    // guarded by mu_
  bool stopped_ = false;                    // guarded by mu_
  std::mt19937_64 rng_{std::random_device{}()};
  std::thread thread_;
  std::mutex join_mu_;  // stop() may come from two threads at once
};

}  // namespace nsq::client
