#pragma once

#include <csignal>
#include <functional>
#include <initializer_list>
#include <optional>
#include <thread>

// SIGINT/SIGTERM (and any extra signal a tool asks for, e.g. SIGHUP) taken
// synchronously through a signalfd: no async-signal handler runs, so the
// reaction may do anything (stop consumers, log, flush files).
namespace nsq::tools {

// Create it first thing in main, before any thread starts: it blocks the
// signals in the calling thread and every thread created later inherits that
// mask, so the signals stay pending for the signalfd.
//
// @par Thread Safety: wait()/next() from one thread at a time; watch() once.
class TerminationSignals {
 public:
  explicit TerminationSignals(std::initializer_list<int> extra = {});
  // Stops the watcher thread (if any) and closes the descriptors.
  ~TerminationSignals();
  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;

  // Readable when a signal is pending: poll it together with other fds.
  int fd() const { return signal_fd_; }

  // Blocks until a signal arrives; returns its number.
  int wait();
  // A pending signal, without blocking.
  std::optional<int> next();

  // Calls on_signal(sig) on a thread of its own for every signal, until
  // destruction. on_signal must not destroy this object.
  void watch(std::function<void(int)> on_signal);

 private:
  sigset_t set_{};
  int signal_fd_ = -1;
  int stop_fd_ = -1;  // eventfd waking the watcher thread for destruction
  std::thread watcher_;
};

}  // namespace nsq::tools
