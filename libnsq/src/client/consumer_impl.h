#pragma once

// The Consumer behind its public header: the class here, its work in
// consumer_impl.cc (connections, messages, the public calls) and
// consumer_flow.cc (RDY across connections, backoff, stop).

#include <spdlog/spdlog.h>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "backoff.h"
#include "commands.h"
#include "connection.h"
#include "handler_pool.h"
#include "io_thread.h"
#include "lookupd_poller.h"
#include "nsq/client/consumer.h"
#include "null_logger.h"

namespace nsq::client {

class Consumer::Impl : public Connection::Delegate, public std::enable_shared_from_this<Impl> {
 public:
  using Clock = std::chrono::steady_clock;

  // One nsqd connection's consumer-side state. Answers to its messages come
  // from any thread and are posted to the I/O thread.
  struct Conn : MessageResponder {
    std::weak_ptr<Impl> owner;
    std::shared_ptr<Connection> connection;
    std::string address;
    std::atomic<int64_t> rdy{0};        // last RDY sent (written on the I/O thread)
    std::atomic<int64_t> in_flight{0};  // delivered, not yet answered
    Clock::time_point last_message{};
    Clock::time_point last_rdy_change{};
    bool subscribed = false;  // SUB sent (the connection is ready)
    bool closing = false;     // CLS sent
    // CLOSE_WAIT received: nsqd sends no message after it, so only now may
    // the connection close once every message it delivered is answered.
    bool close_wait = false;

    void on_finish(const Message& m) override {
      if (auto impl = owner.lock()) impl->post_answer(this, m, Answer::finish, {}, false);
    }
    void on_requeue(const Message& m, std::chrono::milliseconds delay, bool backoff) override {
      if (auto impl = owner.lock()) impl->post_answer(this, m, Answer::requeue, delay, backoff);
    }
    void on_touch(const Message& m) override {
      if (auto impl = owner.lock()) impl->post_answer(this, m, Answer::touch, {}, false);
    }
  };

  enum class Answer { finish, requeue, touch };
  enum class BackoffSignal { resume, backoff, keep };

  Impl(std::string topic, std::string channel, Config config,
       std::shared_ptr<spdlog::logger> logger)
      : topic_(std::move(topic)),
        channel_(std::move(channel)),
        config_(std::move(config)),
        logger_(or_null_logger(std::move(logger), "consumer")),
        max_in_flight_(config_.max_in_flight),
        poller_(topic_, config_, *logger_,
                [this](std::vector<std::string> found) { on_lookupd_found(std::move(found)); }),
        backoff_timer_(io_.io()),
        redistribute_timer_(io_.io()),
        stop_timer_(io_.io()) {}

  const std::string& topic() const { return topic_; }
  const std::string& channel() const { return channel_; }

  void set_handler(MessageHandler handler, int concurrency);
  void set_failed_message_hook(std::function<void(const Message&)> hook);

  tl::expected<void, std::string> check_can_connect();

  tl::expected<void, std::string> connect_to_nsqd(const std::string& address);

  tl::expected<void, std::string> connect_to_lookupd(const std::string& address);

  void stop();

  bool wait_for(std::optional<std::chrono::milliseconds> timeout);

  // Stops, waits, and ends every thread (the destructor's work).
  void shutdown();

  void change_max_in_flight(int n);

  bool is_starved() const;

  ConsumerStats stats() const;

 private:
  void start_once();

  // ---- handler threads ----

  void handle(Message& message, bool over_max_attempts);

  // ---- any thread -> I/O thread ----

  void post_answer(Conn* conn, const Message& message, Answer answer,
                   std::chrono::milliseconds delay, bool backoff);

  std::weak_ptr<Conn> find_conn(Conn* raw);

  void on_lookupd_found(std::vector<std::string> addresses);

  // ---- I/O thread ----

  void connect(const std::string& address);

  std::shared_ptr<Conn> conn_of(Connection& connection);

  void on_ready(Connection& connection) override;

  void on_response(Connection& connection, std::string_view data) override;

  void on_error_frame(Connection& connection, std::string_view data) override;

  void on_message(Connection& connection, const MessageHeader& header, std::string body) override;

  void on_closed(Connection& connection, const std::string& reason) override;

  void schedule_reconnect(const std::string& address);

  void answer(Conn& conn, const MessageId& id, int attempts, Answer what,
              std::chrono::milliseconds delay, bool backoff);

  void maybe_close(Conn& conn);

  // ---- RDY ----

  std::size_t ready_count() const;

  std::vector<std::shared_ptr<Conn>> ready_conns();

  void update_rdy(Conn& conn, int64_t count);

  // Every connection to its share of max_in_flight (lowering first, so the
  // sum never exceeds it); nothing while backing off.
  void rebalance();

  void schedule_redistribute();

  // go-nsq's redistributeRDY: when there are more connections than RDY to
  // give (or in backoff), idle ones give theirs back and random ones get 1.
  void redistribute();

  // ---- backoff (go-nsq's startStopContinueBackoff) ----

  void backoff_signal(BackoffSignal signal);

  // One random connection gets RDY 1 to test the water.
  void after_backoff_wait();

  // ---- stop ----

  void begin_stop();

  void maybe_finish_stop();

  const std::string topic_;
  const std::string channel_;
  const Config config_;
  std::shared_ptr<spdlog::logger> logger_;
  MessageHandler handler_;
  std::function<void(const Message&)> failed_hook_;
  int concurrency_ = 1;

  std::atomic<bool> started_{false};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> uses_lookupd_{false};
  std::atomic<uint64_t> received_{0};
  std::atomic<uint64_t> finished_{0};
  std::atomic<uint64_t> requeued_{0};

  mutable std::mutex mu_;
  std::condition_variable stopped_cv_;
  std::map<std::string, std::shared_ptr<Conn>> conns_;  // guarded by mu_; changed on the I/O thread
  std::set<std::string> direct_addresses_;              // guarded by mu_
  bool stopped_ = false;                                // guarded by mu_

  // I/O thread only.
  int64_t max_in_flight_;
  int64_t total_rdy_ = 0;
  int backoff_level_ = 0;
  bool backoff_timer_active_ = false;
  bool stopping_ = false;
  std::mt19937_64 rng_{std::random_device{}()};

  HandlerPool handlers_;
  LookupdPoller poller_;
  IoThread io_;
  // After io_: timers are destroyed before the io_context they use (declared
  // before it, they outlived it: a use after free in ~Impl, seen by ASan).
  std::vector<std::shared_ptr<boost::asio::steady_timer>> reconnect_timers_;  // I/O thread only
  boost::asio::steady_timer backoff_timer_;
  boost::asio::steady_timer redistribute_timer_;
  boost::asio::steady_timer stop_timer_;
};

}  // namespace nsq::client
