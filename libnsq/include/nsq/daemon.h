#pragma once

#include <csignal>
#include <functional>
#include <memory>
#include <string>

#include "nsq/config/parse_exit.h"
#include "nsq/go_logger.h"

// What nsqd's and nsqlookupd's main functions share around their server.
namespace nsq {

// Prints what parsing decided instead of running (usage, version, or an
// error) where Go prints it, and returns the exit code for main.
int finish_parse(const config::ParseExit& exit);

// A daemon's server (nsqd's, nsqlookupd's) as DaemonProcess runs it.
class DaemonServer {
 public:
  enum class SignalAction { stop, keep_running };

  virtual ~DaemonServer() = default;
  // Binds the listeners (logging "TCP: listening on <addr>", ...) and starts
  // serving on threads of its own. Returns a message on failure.
  virtual std::string start() = 0;
  // After a successful start(): shuts down cleanly (no new connections,
  // clients closed, what must persist written) and returns when done.
  virtual void stop() = 0;
  // SIGINT or SIGTERM arrived: stop (the default), or keep running because
  // the server acts on it itself (nsqd --sigterm=drain).
  virtual SignalAction on_signal(int sig);

  // Set by DaemonProcess::serve before start(): how the server ends itself
  // (a drain that finished, PUT /config/shutdown). Any thread; `reason` is
  // logged instead of a signal's line.
  void set_stop_request(std::function<void(std::string reason)> request) {
    stop_request_ = std::move(request);
  }

 protected:
  void request_stop(std::string reason) {
    if (stop_request_) stop_request_(std::move(reason));
  }

 private:
  std::function<void(std::string)> stop_request_;
};

// The process around a daemon's server, as Go's nsqd and nsqlookupd run:
// the Go logger, the raised open-file limit, SIGINT/SIGTERM, the version
// line first and "<program>: exited cleanly" last. main() parses the
// options, builds this, then the server, and returns serve(server).
class DaemonProcess {
 public:
  // Logs "<program> v1.3.0 (built w/<compiler>)". Construct it before any
  // other thread starts: it blocks SIGINT and SIGTERM in the calling thread,
  // so every thread started afterwards inherits the block and serve() alone
  // takes them. Also ignores SIGPIPE (a peer closing mid-write is an error
  // code, not a death).
  DaemonProcess(std::string program, const std::string& log_prefix, GoLogLevel level);
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // The logger for the server and main's own lines.
  const std::shared_ptr<spdlog::logger>& log() const { return log_; }

  // start()s the server: a failure is logged at fatal level and gives exit
  // code 1. Else waits for SIGINT or SIGTERM (that on_signal does not keep
  // it running through) or the server's own stop request, then stop()s it
  // and gives 0.
  int serve(DaemonServer& server);

 private:
  std::string program_;
  std::shared_ptr<spdlog::logger> log_;
  sigset_t signals_;  // SIGINT, SIGTERM
};

}  // namespace nsq
