#include "nsq/client/producer.h"

#include <deque>
#include <future>

#include "commands.h"
#include "connection.h"
#include "io_thread.h"
#include "null_logger.h"

namespace nsq::client {

// All state below is touched on io_'s thread only.
class Producer::Impl : public Connection::Delegate {
 public:
  Impl(std::string address, Config config, std::shared_ptr<spdlog::logger> logger)
      : address_(std::move(address)),
        config_(std::move(config)),
        logger_(or_null_logger(std::move(logger), "producer")) {}

  ~Impl() override {
    std::promise<void> done;
    auto future = done.get_future();
    io_.post([this, &done] { stop_async([&done] { done.set_value(); }); });
    future.wait();
    io_.join();
  }

  const std::string& address() const { return address_; }

  // Sends `command` and calls `done` with nsqd's reply to it.
  void command(std::string command, PublishCallback done) {
    io_.post([this, command = std::move(command), done = std::move(done)]() mutable {
      if (stopping_) {
        done(tl::unexpected(std::string("producer stopped")));
        return;
      }
      ensure_connection();
      conn_->send(command);
      pending_.push_back(std::move(done));
    });
  }

  void ping(PublishCallback done) {
    io_.post([this, done = std::move(done)]() mutable {
      if (stopping_) {
        done(tl::unexpected(std::string("producer stopped")));
        return;
      }
      ensure_connection();
      if (conn_->ready()) {
        conn_->send(commands::kNop);
        done({});
      } else {
        ready_waiters_.push_back(std::move(done));
      }
    });
  }

  void stop_async(std::function<void()> done) {
    stopping_ = true;
    stop_waiters_.push_back(std::move(done));
    maybe_finish_stop();
  }

  IoThread& io() { return io_; }

 private:
  void ensure_connection() {
    if (conn_ && !conn_->closed()) return;
    conn_ = std::make_shared<Connection>(io_.io(), address_, config_, this, *logger_);
    conn_->start();
  }

  void maybe_finish_stop() {
    if (!stopping_ || !pending_.empty()) return;
    if (conn_ && !conn_->closed()) {
      conn_->close();  // on_closed finishes the stop
      return;
    }
    auto waiters = std::move(stop_waiters_);
    stop_waiters_.clear();
    for (auto& w : waiters) w();
  }

  void on_ready(Connection& conn) override {
    logger_->info("({}) connected", conn.address());
    auto waiters = std::move(ready_waiters_);
    ready_waiters_.clear();
    for (auto& w : waiters) {
      conn.send(commands::kNop);
      w({});
    }
  }

  void on_response(Connection&, std::string_view) override { reply({}); }

  // Every error nsqd answers a publish with is fatal: it closes the
  // connection and runs none of the commands after it. Closing first means
  // the next command opens a fresh connection instead of meeting a dying one.
  void on_error_frame(Connection& conn, std::string_view data) override {
    logger_->error("({}) protocol error - {}", conn.address(), data);
    reply(tl::unexpected(std::string(data)));
    conn.close();
  }

  void on_message(Connection& conn, const MessageHeader&, std::string) override {
    logger_->error("({}) unexpected message for a producer", conn.address());
  }

  void on_closed(Connection& conn, const std::string& reason) override {
    if (&conn != conn_.get()) return;
    std::string why = reason.empty() ? std::string("connection closed") : reason;
    auto pending = std::move(pending_);
    pending_.clear();
    auto waiters = std::move(ready_waiters_);
    ready_waiters_.clear();
    for (auto& p : pending) p(tl::unexpected(why));
    for (auto& w : waiters) w(tl::unexpected(why));
    // Keep conn_ (closed) alive until here: we are inside its call.
    io_.post([keep = conn_] {});
    conn_.reset();
    if (stopping_) maybe_finish_stop();
  }

  void reply(PublishResult result) {
    if (pending_.empty()) {
      logger_->error("({}) reply with no command pending", address_);
      return;
    }
    auto done = std::move(pending_.front());
    pending_.pop_front();
    done(std::move(result));
    maybe_finish_stop();
  }

  const std::string address_;
  const Config config_;
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<Connection> conn_;
  std::deque<PublishCallback> pending_;         // in the order sent
  std::vector<PublishCallback> ready_waiters_;  // pings waiting for the handshake
  std::vector<std::function<void()>> stop_waiters_;
  bool stopping_ = false;
  IoThread io_;  // last: its thread starts after the members it uses exist
};

namespace {

PublishResult wait_for(const std::function<void(PublishCallback)>& start) {
  auto promise = std::make_shared<std::promise<PublishResult>>();
  auto future = promise->get_future();
  start([promise](PublishResult r) { promise->set_value(std::move(r)); });
  return future.get();
}

}  // namespace

Producer::Producer(std::string address, Config config, std::shared_ptr<spdlog::logger> logger)
    : impl_(std::make_shared<Impl>(std::move(address), std::move(config), std::move(logger))) {}

Producer::~Producer() = default;

void Producer::publish_async(std::string topic, std::string body, PublishCallback done) {
  impl_->command(commands::pub(topic, body), std::move(done));
}

void Producer::multi_publish_async(std::string topic, std::vector<std::string> bodies,
                                   PublishCallback done) {
  impl_->command(commands::mpub(topic, bodies), std::move(done));
}

void Producer::deferred_publish_async(std::string topic, std::chrono::milliseconds delay,
                                      std::string body, PublishCallback done) {
  impl_->command(commands::dpub(topic, delay, body), std::move(done));
}

PublishResult Producer::publish(std::string topic, std::string body) {
  return wait_for([&](PublishCallback cb) { publish_async(topic, body, std::move(cb)); });
}

PublishResult Producer::multi_publish(std::string topic, std::vector<std::string> bodies) {
  return wait_for([&](PublishCallback cb) { multi_publish_async(topic, bodies, std::move(cb)); });
}

PublishResult Producer::deferred_publish(std::string topic, std::chrono::milliseconds delay,
                                         std::string body) {
  return wait_for(
      [&](PublishCallback cb) { deferred_publish_async(topic, delay, body, std::move(cb)); });
}

PublishResult Producer::ping() {
  return wait_for([&](PublishCallback cb) { impl_->ping(std::move(cb)); });
}

void Producer::stop() {
  std::promise<void> done;
  auto future = done.get_future();
  impl_->io().post([this, &done] { impl_->stop_async([&done] { done.set_value(); }); });
  future.wait();
}

const std::string& Producer::address() const { return impl_->address(); }

}  // namespace nsq::client
