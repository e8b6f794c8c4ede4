#include "notifier.h"

#include <spdlog/spdlog.h>

#include "cluster_json.h"

namespace nsq::admin {

std::string admin_action_json(const AdminAction& a) {
  JsonOut out;
  out.begin_object();
  out.key("action");
  out.string(a.action);
  out.key("topic");
  out.string(a.topic);
  if (!a.channel.empty()) {
    out.key("channel");
    out.string(a.channel);
  }
  if (!a.node.empty()) {
    out.key("node");
    out.string(a.node);
  }
  out.key("timestamp");
  out.integer(a.timestamp);
  if (!a.user.empty()) {
    out.key("user");
    out.string(a.user);
  }
  out.key("remote_ip");
  out.string(a.remote_ip);
  out.key("user_agent");
  out.string(a.user_agent);
  out.key("url");
  out.string(a.url);
  out.key("via");
  out.string(a.via);
  out.end_object();
  return out.take();
}

Notifier::Notifier(std::string endpoint, UpstreamTimeouts timeouts,
                   std::shared_ptr<spdlog::logger> log)
    : endpoint_(std::move(endpoint)), timeouts_(timeouts), log_(std::move(log)) {
  thread_ = std::thread([this] { run(); });
}

Notifier::~Notifier() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Notifier::notify(AdminAction action) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(action));
  }
  cv_.notify_one();
}

void Notifier::run() {
  for (;;) {
    AdminAction action;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      action = std::move(queue_.front());
      queue_.pop_front();
    }
    log_->info("POSTing notification to {}", endpoint_);
    auto status = post_json(endpoint_, admin_action_json(action), timeouts_);
    if (!status) log_->error("failed to POST notification - {}", status.error());
  }
}

}  // namespace nsq::admin
