#include "core/drain_monitor.h"

#include "core/broker.h"

namespace nsq::nsqd {

DrainMonitor::DrainMonitor(const Broker& broker, std::function<void()> drained)
    : thread_([this, &broker, drained = std::move(drained)] { run(broker, drained); }) {}

DrainMonitor::~DrainMonitor() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void DrainMonitor::run(const Broker& broker, const std::function<void()>& drained) {
  int empty_checks = 0;
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, kCheckEvery, [this] { return stopping_; })) {
    lock.unlock();
    empty_checks = broker.drained() ? empty_checks + 1 : 0;
    lock.lock();
    if (empty_checks >= 2) {
      lock.unlock();
      drained();
      return;
    }
  }
}

}  // namespace nsq::nsqd
