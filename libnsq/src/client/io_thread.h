#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <cassert>
#include <future>
#include <thread>

namespace nsq::client {

// An io_context with the one thread that runs it, for as long as this object
// lives. Producer and Consumer each own one: their state is touched only on
// that thread, so it needs no locks.
class IoThread {
 public:
  IoThread() : work_(boost::asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~IoThread() { join(); }
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  boost::asio::io_context& io() { return io_; }
  bool on_this_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

  template <class F>
  void post(F&& f) {
    boost::asio::post(io_, std::forward<F>(f));
  }

  // Returns once the loop has run every handler queued before the call.
  // A completion queued by a handler (a timer it cancelled) joins the queue
  // only when that handler returns, possibly behind a first marker; the
  // marker's own post lands behind it. Never called from the thread.
  void drain() {
    assert(!on_this_thread());
    std::promise<void> done;
    post([this, &done] { post([&done] { done.set_value(); }); });
    done.get_future().wait();
  }

  // Stops the loop (queued handlers are dropped) and joins. Owners finish
  // their work first (close connections); never called from the thread.
  void join() {
    if (!thread_.joinable()) return;
    assert(!on_this_thread());
    work_.reset();
    io_.stop();
    thread_.join();
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace nsq::client
