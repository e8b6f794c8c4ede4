#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "options.h"

namespace spdlog {
class logger;
}

namespace nsq::http {
class Server;
}

// nsqadmin as a whole: the HTTP server (libnsq's), the API, the cluster
// gatherer, the notifier and the history poller. Requests are answered on a small pool of
// worker threads because gathering blocks on upstream HTTP requests, which
// the server's I/O thread must never do.
namespace nsq::admin {

class Api;
class ClusterInfo;
class History;
class HistoryPoller;
class Notifier;

// @par Thread Safety: start(), stop() and the destructor from one thread.
class AdminServer {
 public:
  // options: validated (validation_error() returned nothing); log not null.
  AdminServer(Options options, std::shared_ptr<spdlog::logger> log);
  ~AdminServer();  // stop()
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // Listens on --http-address and starts serving; logs "HTTP: listening on
  // <addr>". Returns "" or Go's error text ("listen (<addr>) failed - ...").
  std::string start();
  std::uint16_t port() const;
  // Closes the listener and connections, then joins the workers. Idempotent.
  void stop();

 private:
  void worker();

  Options options_;
  std::shared_ptr<spdlog::logger> log_;
  std::unique_ptr<ClusterInfo> cluster_;
  std::unique_ptr<Notifier> notifier_;
  std::unique_ptr<History> history_;  // null: no history (--history-duration=0, or graphite)
  std::unique_ptr<Api> api_;
  std::unique_ptr<HistoryPoller> poller_;  // after api_: it reads the options through it
  std::unique_ptr<http::Server> server_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace nsq::admin
