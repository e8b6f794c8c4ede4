#pragma once

#include <functional>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace nsq {

// The servers' I/O threads: one io_context per thread (STYLE.md §2), so a
// connection accepted onto a context stays on that thread for its whole life
// and its handlers never race. Used by nsq::http::Server and nsqd's TCP side.
// @par Thread Safety: start, stop and next from one controlling thread (the
// acceptor's for next); first and the contexts themselves from any.
class IoPool {
 public:
  // How a thread runs its context until the context is stopped (nsqd polls
  // before it sleeps); io_context::run() when empty.
  using RunLoop = std::function<void(boost::asio::io_context&)>;

  // `threads` contexts (at least one), not yet running.
  explicit IoPool(int threads, RunLoop run = {});
  ~IoPool();  // stop()
  IoPool(const IoPool&) = delete;
  IoPool& operator=(const IoPool&) = delete;

  // Starts one thread per context.
  void start();
  bool running() const;
  // Stops every context (queued handlers are dropped) and joins the threads.
  // Owners close their connections first. Idempotent.
  void stop();

  boost::asio::io_context& first();
  // The contexts in turn, for each accepted connection.
  boost::asio::io_context& next();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsq
