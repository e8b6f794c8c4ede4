#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "nsq/client/message.h"

namespace nsq::client {

// The consumer's handler threads and the queue of delivered messages they
// take from. The queue needs no bound: nsqd never sends more than the RDY
// counts allow, which max_in_flight caps.
//
// @par Thread Safety: push/close from any thread; join from none of the
// pool's own threads.
class HandlerPool {
 public:
  using Work = std::function<void(Message&, bool over_max_attempts)>;

  HandlerPool() = default;
  ~HandlerPool() { join(); }
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  // Starts `threads` threads running `work` on each message (once).
  void start(int threads, Work work) {
    std::lock_guard lock(mu_);
    if (!threads_.empty()) return;
    work_ = std::move(work);
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
  }

  void push(Message message, bool over_max_attempts) {
    {
      std::lock_guard lock(mu_);
      queue_.push_back({std::move(message), over_max_attempts});
    }
    cv_.notify_one();
  }

  // The threads finish the queue, then exit.
  void close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

  void join() {
    close();
    for (auto& t : threads_)
      if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
    for (auto& t : threads_)
      if (t.joinable()) t.detach();  // only when a handler destroyed its consumer
    threads_.clear();
  }

 private:
  struct Item {
    Message message;
    bool over_max_attempts;
  };

  void run() {
    for (;;) {
      Item item;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return closed_ || !queue_.empty(); });
        if (queue_.empty()) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      work_(item.message, item.over_max_attempts);
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;  // guarded by mu_
  bool closed_ = false;     // guarded by mu_
  Work work_;
  std::vector<std::thread> threads_;
};

}  // namespace nsq::client
