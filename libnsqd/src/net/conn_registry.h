#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/context.h"
#include "nsq/stats/model.h"

namespace nsq::nsqd {

class Subscriber;

// The live TCP connections, so shutdown can close them all and wait until
// they are gone. Thread-safe.
class ConnRegistry {
 public:
  void add(ClientId id, std::weak_ptr<Subscriber> conn);
  void remove(ClientId id);
  void close_all();
  // True once no connection is left; false if `timeout` passed first.
  bool wait_empty(std::chrono::milliseconds timeout);
  std::size_t size() const;
  // /stats "producers": connections that published at least once.
  std::vector<stats::Client> producers() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable empty_cv_;
  std::map<ClientId, std::weak_ptr<Subscriber>> conns_;  // guarded by mu_
};

}  // namespace nsq::nsqd
