#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "upstream.h"

namespace spdlog {
class logger;
}

// --notification-http-endpoint: each admin action is POSTed there as JSON
// (Go's AdminAction), from a thread of its own so an action never waits for
// the endpoint. Failures are logged and dropped, as in Go.
namespace nsq::admin {

struct AdminAction {
  std::string action;  // e.g. "pause_channel", "delete_topic", "tombstone_topic_producer"
  std::string topic;
  std::string channel;         // omitted when empty
  std::string node;            // omitted when empty
  std::int64_t timestamp = 0;  // Unix seconds
  std::string user;            // the --acl-http-header value; omitted when empty
  std::string remote_ip;
  std::string user_agent;
  std::string url;  // of the request that caused the action
  std::string via;  // this host's name
};

std::string admin_action_json(const AdminAction& action);

// Owns its sender thread; the destructor sends what is queued, then joins.
// @par Thread Safety: notify() from any thread.
class Notifier {
 public:
  // log must not be null.
  Notifier(std::string endpoint, UpstreamTimeouts timeouts, std::shared_ptr<spdlog::logger> log);
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  void notify(AdminAction action);

 private:
  void run();

  const std::string endpoint_;
  const UpstreamTimeouts timeouts_;
  std::shared_ptr<spdlog::logger> log_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<AdminAction> queue_;  // guarded by mu_
  bool stopping_ = false;          // guarded by mu_
  std::thread thread_;
};

}  // namespace nsq::admin
