#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <thread>

#include "nsq/config/parse_exit.h"

// What nsqd's and nsqlookupd's main functions share around their server.
namespace nsq {

// Prints what parsing decided instead of running (usage, version, or an
// error) where Go prints it, and returns the exit code for main.
int finish_parse(const config::ParseExit& exit);

// SIGINT and SIGTERM, taken by one thread with sigwait. Construct it before
// any other thread starts: it blocks both signals in the calling thread, so
// every thread started afterwards inherits the block and only the watcher
// sees them. Also ignores SIGPIPE (a peer closing mid-write is an error code,
// not a death).
class ShutdownSignal {
 public:
  ShutdownSignal();
  ~ShutdownSignal();
  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

  // Starts the watcher: `on_signal(signo)` runs on it when a signal arrives.
  void watch(std::function<void(int signo)> on_signal);
  // Ends the watcher (if no signal came, it is woken without calling
  // on_signal). Call before what on_signal touches goes away.
  void stop();

 private:
  sigset_t signals_;
  std::atomic<bool> stopping_{false};  // the next SIGTERM is stop()'s wake-up
  std::thread watcher_;
};

}  // namespace nsq
