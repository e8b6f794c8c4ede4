#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace nsq::nsqd {

class Broker;

// Waits, on a thread of its own, for a draining broker to hold nothing: two
// checks in a row, kCheckEvery apart (a message on its way from a topic to
// its channels may show in neither for a moment), then calls `drained` once.
class DrainMonitor {
 public:
  static constexpr std::chrono::milliseconds kCheckEvery{100};

  DrainMonitor(const Broker& broker, std::function<void()> drained);
  ~DrainMonitor();  // stops and joins the thread
  DrainMonitor(const DrainMonitor&) = delete;
  DrainMonitor& operator=(const DrainMonitor&) = delete;

 private:
  void run(const Broker& broker, const std::function<void()>& drained);

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace nsq::nsqd
