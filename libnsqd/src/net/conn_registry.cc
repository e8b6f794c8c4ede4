#include "net/conn_registry.h"

#include <vector>

#include "core/channel.h"

namespace nsq::nsqd {

void ConnRegistry::add(ClientId id, std::weak_ptr<Subscriber> conn) {
  std::lock_guard lock(mu_);
  conns_[id] = std::move(conn);
}

void ConnRegistry::remove(ClientId id) {
  std::lock_guard lock(mu_);
  conns_.erase(id);
  if (conns_.empty()) empty_cv_.notify_all();
}

void ConnRegistry::close_all() {
  std::vector<std::shared_ptr<Subscriber>> live;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, weak] : conns_) {
      if (auto c = weak.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live) c->close_for_delete();
}

bool ConnRegistry::wait_empty(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return empty_cv_.wait_for(lock, timeout, [&] { return conns_.empty(); });
}

std::size_t ConnRegistry::size() const {
  std::lock_guard lock(mu_);
  return conns_.size();
}

std::vector<stats::Client> ConnRegistry::producers() const {
  std::vector<std::shared_ptr<Subscriber>> live;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, weak] : conns_) {
      if (auto c = weak.lock()) live.push_back(std::move(c));
    }
  }
  std::vector<stats::Client> out;
  for (const auto& c : live) {
    if (c->is_producer()) out.push_back(c->stats());
  }
  return out;
}

}  // namespace nsq::nsqd
