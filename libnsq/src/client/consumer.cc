#include "nsq/client/consumer.h"

#include <boost/asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

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
#include "nsq/flags/go_duration.h"
#include "nsq/names.h"
#include "null_logger.h"

namespace nsq::client {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStopTimeout = std::chrono::seconds(30);

bool looks_like_host_port(const std::string& address) {
  auto colon = address.rfind(':');
  return colon != std::string::npos && colon > 0 && colon + 1 < address.size();
}

}  // namespace

class Consumer::Impl : public Connection::Delegate, public std::enable_shared_from_this<Impl> {
 public:
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

  void set_handler(MessageHandler handler, int concurrency) {
    handler_ = std::move(handler);
    concurrency_ = std::max(1, concurrency);
  }
  void set_failed_message_hook(std::function<void(const Message&)> hook) {
    failed_hook_ = std::move(hook);
  }

  tl::expected<void, std::string> check_can_connect() {
    if (stop_requested_.load()) return tl::unexpected(std::string("consumer stopped"));
    if (!is_valid_topic_name(topic_))
      return tl::unexpected("invalid topic name " + topic_);
    if (!is_valid_channel_name(channel_))
      return tl::unexpected("invalid channel name " + channel_);
    if (!handler_) return tl::unexpected(std::string("no handlers"));
    if (auto ok = config_.validate(); !ok) return ok;
    start_once();
    return {};
  }

  tl::expected<void, std::string> connect_to_nsqd(const std::string& address) {
    if (auto ok = check_can_connect(); !ok) return ok;
    if (!looks_like_host_port(address)) return tl::unexpected("invalid address " + address);
    {
      std::lock_guard lock(mu_);
      if (!direct_addresses_.insert(address).second)
        return tl::unexpected(std::string("already connected"));
    }
    io_.post([self = shared_from_this(), address] { self->connect(address); });
    return {};
  }

  tl::expected<void, std::string> connect_to_lookupd(const std::string& address) {
    if (auto ok = check_can_connect(); !ok) return ok;
    auto endpoint = parse_lookupd_address(address);
    if (!endpoint) return tl::unexpected(endpoint.error());
    uses_lookupd_ = true;
    if (!poller_.add(*endpoint)) return tl::unexpected(std::string("lookupd address already exists"));
    return {};
  }

  void stop() {
    if (stop_requested_.exchange(true)) return;
    io_.post([self = shared_from_this()] { self->begin_stop(); });
  }

  bool wait_for(std::optional<std::chrono::milliseconds> timeout) {
    std::unique_lock lock(mu_);
    auto done = [&] { return stopped_; };
    if (timeout) return stopped_cv_.wait_for(lock, *timeout, done);
    stopped_cv_.wait(lock, done);
    return true;
  }

  // Stops, waits, and ends every thread (the destructor's work).
  void shutdown() {
    stop();
    if (started_.load()) wait_for(std::nullopt);
    poller_.stop();
    handlers_.join();
    // The handlers of the timers begin_stop cancelled hold this Impl; dropped
    // unrun by join(), they would live in io_ as long as io_ lives, that is
    // as long as this Impl: a cycle that leaked the consumer (LSan).
    io_.drain();
    io_.join();
  }

  void change_max_in_flight(int n) {
    io_.post([self = shared_from_this(), n] {
      self->max_in_flight_ = n;
      self->rebalance();
    });
  }

  bool is_starved() const {
    std::lock_guard lock(mu_);
    for (const auto& [address, conn] : conns_) {
      int64_t in_flight = conn->in_flight.load();
      int64_t threshold = static_cast<int64_t>(static_cast<double>(conn->rdy.load()) * 0.85);
      if (in_flight > 0 && in_flight >= threshold && !conn->closing) return true;
    }
    return false;
  }

  ConsumerStats stats() const {
    ConsumerStats s;
    s.messages_received = received_.load();
    s.messages_finished = finished_.load();
    s.messages_requeued = requeued_.load();
    std::lock_guard lock(mu_);
    for (const auto& [address, conn] : conns_)
      if (conn->connection && conn->connection->ready()) ++s.connections;
    return s;
  }

 private:
  void start_once() {
    if (started_.exchange(true)) return;
    handlers_.start(concurrency_, [this](Message& m, bool over_max) { handle(m, over_max); });
    io_.post([self = shared_from_this()] { self->schedule_redistribute(); });
  }

  // ---- handler threads ----

  void handle(Message& message, bool over_max_attempts) {
    if (over_max_attempts) {
      logger_->warn("msg {} attempted {} times, giving up", message.id_view(), message.attempts());
      if (failed_hook_) failed_hook_(message);
      message.finish();
      return;
    }
    HandlerResult result = handler_(message);
    if (!message.auto_response_enabled()) return;
    if (result) {
      message.finish();
    } else {
      logger_->error("Handler returned error ({}) for msg {}", result.error(), message.id_view());
      message.requeue();
    }
  }

  // ---- any thread -> I/O thread ----

  void post_answer(Conn* conn, const Message& message, Answer answer,
                   std::chrono::milliseconds delay, bool backoff) {
    std::weak_ptr<Conn> weak = find_conn(conn);
    io_.post([self = shared_from_this(), weak, id = message.id(), attempts = message.attempts(),
              answer, delay, backoff] {
      auto c = weak.lock();
      if (!c) return;
      self->answer(*c, id, attempts, answer, delay, backoff);
    });
  }

  std::weak_ptr<Conn> find_conn(Conn* raw) {
    std::lock_guard lock(mu_);
    for (const auto& [address, conn] : conns_)
      if (conn.get() == raw) return conn;
    return {};
  }

  void on_lookupd_found(std::vector<std::string> addresses) {
    io_.post([self = shared_from_this(), addresses = std::move(addresses)] {
      for (const auto& a : addresses) self->connect(a);
    });
  }

  // ---- I/O thread ----

  void connect(const std::string& address) {
    if (stopping_) return;
    {
      std::lock_guard lock(mu_);
      if (conns_.count(address) != 0) return;
    }
    logger_->info("[{}/{}] ({}) connecting to nsqd", topic_, channel_, address);
    auto conn = std::make_shared<Conn>();
    conn->owner = weak_from_this();
    conn->address = address;
    conn->connection = std::make_shared<Connection>(io_.io(), address, config_, this, *logger_);
    {
      std::lock_guard lock(mu_);
      conns_[address] = conn;
    }
    conn->connection->start();
  }

  std::shared_ptr<Conn> conn_of(Connection& connection) {
    std::lock_guard lock(mu_);
    auto it = conns_.find(connection.address());
    if (it == conns_.end() || it->second->connection.get() != &connection) return nullptr;
    return it->second;
  }

  void on_ready(Connection& connection) override {
    auto conn = conn_of(connection);
    if (!conn) return;
    if (stopping_) {
      connection.close();
      return;
    }
    connection.send(commands::sub(topic_, channel_));
    conn->subscribed = true;
    conn->last_message = Clock::now();
    rebalance();
  }

  void on_response(Connection& connection, std::string_view data) override {
    auto conn = conn_of(connection);
    if (!conn) return;
    if (data == "CLOSE_WAIT") {
      logger_->info("[{}/{}] ({}) received CLOSE_WAIT from nsqd", topic_, channel_, conn->address);
      conn->closing = true;
      maybe_close(*conn);
    }
  }

  void on_error_frame(Connection& connection, std::string_view data) override {
    logger_->error("[{}/{}] ({}) protocol error - {}", topic_, channel_, connection.address(), data);
  }

  void on_message(Connection& connection, const MessageHeader& header, std::string body) override {
    auto conn = conn_of(connection);
    if (!conn) return;
    ++conn->in_flight;
    ++received_;
    conn->last_message = Clock::now();
    Message message(header, std::move(body), conn->address, std::weak_ptr<MessageResponder>(conn));
    bool over = config_.max_attempts > 0 && header.attempts > config_.max_attempts;
    handlers_.push(std::move(message), over);
  }

  void on_closed(Connection& connection, const std::string& reason) override {
    std::shared_ptr<Conn> conn;
    {
      std::lock_guard lock(mu_);
      auto it = conns_.find(connection.address());
      if (it == conns_.end() || it->second->connection.get() != &connection) return;
      conn = it->second;
      conns_.erase(it);
    }
    // Keep the Connection alive past this call (we are inside it).
    io_.post([conn] {});
    total_rdy_ -= conn->rdy.load();
    conn->rdy = 0;
    logger_->info("[{}/{}] ({}) {}", topic_, channel_, conn->address,
                  reason.empty() ? std::string("connection closed") : "connection lost: " + reason);
    if (stopping_) {
      maybe_finish_stop();
      return;
    }
    if (uses_lookupd_) poller_.recheck();
    bool direct;
    {
      std::lock_guard lock(mu_);
      direct = direct_addresses_.count(conn->address) != 0;
    }
    if (direct) schedule_reconnect(conn->address);
    rebalance();
  }

  void schedule_reconnect(const std::string& address) {
    logger_->info("[{}/{}] ({}) re-connecting in {}", topic_, channel_, address,
                  flags::format_go_duration(config_.lookupd_poll_interval));
    auto timer = std::make_shared<boost::asio::steady_timer>(io_.io());
    timer->expires_after(config_.lookupd_poll_interval);
    timer->async_wait([self = shared_from_this(), timer, address](boost::system::error_code ec) {
      if (!ec) self->connect(address);
    });
    reconnect_timers_.push_back(timer);
  }

  void answer(Conn& conn, const MessageId& id, int attempts, Answer what,
              std::chrono::milliseconds delay, bool backoff) {
    if (!conn.connection || conn.connection->closed()) return;
    switch (what) {
      case Answer::touch:
        conn.connection->send(commands::touch(id));
        return;
      case Answer::finish:
        conn.connection->send(commands::fin(id));
        ++finished_;
        --conn.in_flight;
        backoff_signal(BackoffSignal::resume);
        break;
      case Answer::requeue:
        conn.connection->send(commands::req(id, requeue_delay(config_, delay, attempts)));
        ++requeued_;
        --conn.in_flight;
        backoff_signal(backoff ? BackoffSignal::backoff : BackoffSignal::keep);
        break;
    }
    maybe_close(conn);
  }

  void maybe_close(Conn& conn) {
    if (conn.closing && conn.in_flight.load() <= 0 && conn.connection)
      conn.connection->close_when_flushed();
  }

  // ---- RDY ----

  std::size_t ready_count() const {
    std::size_t n = 0;
    for (const auto& [address, conn] : conns_)
      if (conn->subscribed && !conn->closing) ++n;
    return n;
  }

  std::vector<std::shared_ptr<Conn>> ready_conns() {
    std::vector<std::shared_ptr<Conn>> out;
    std::lock_guard lock(mu_);
    for (const auto& [address, conn] : conns_)
      if (conn->subscribed && !conn->closing && !conn->connection->closed()) out.push_back(conn);
    return out;
  }

  void update_rdy(Conn& conn, int64_t count) {
    if (conn.closing || !conn.subscribed || conn.connection->closed()) return;
    count = std::min(count, conn.connection->settings().max_rdy_count);
    int64_t max_possible = max_in_flight_ - total_rdy_ + conn.rdy.load();
    count = std::max<int64_t>(0, std::min(count, max_possible));
    total_rdy_ += count - conn.rdy.load();
    conn.rdy = count;
    conn.last_rdy_change = Clock::now();
    conn.connection->send(commands::rdy(count));
  }

  // Every connection to its share of max_in_flight (lowering first, so the
  // sum never exceeds it); nothing while backing off.
  void rebalance() {
    if (stopping_ || backoff_level_ > 0) return;
    auto conns = ready_conns();
    int64_t share = per_connection_rdy(max_in_flight_, conns.size());
    for (auto& c : conns)
      if (c->rdy.load() > share) update_rdy(*c, share);
    for (auto& c : conns)
      if (c->rdy.load() < share) update_rdy(*c, share);
  }

  void schedule_redistribute() {
    redistribute_timer_.expires_after(config_.rdy_redistribute_interval);
    redistribute_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->stopping_) return;
      self->redistribute();
      self->schedule_redistribute();
    });
  }

  // go-nsq's redistributeRDY: when there are more connections than RDY to
  // give (or in backoff), idle ones give theirs back and random ones get 1.
  void redistribute() {
    if (backoff_timer_active_) return;
    auto conns = ready_conns();
    bool in_backoff = backoff_level_ > 0;
    if (!(static_cast<int64_t>(conns.size()) > max_in_flight_ || (in_backoff && conns.size() > 1)))
      return;
    auto now = Clock::now();
    for (auto& c : conns) {
      if (c->rdy.load() <= 0) continue;
      if (now - c->last_message > config_.low_rdy_idle_timeout ||
          now - c->last_rdy_change > config_.low_rdy_timeout) {
        logger_->debug("({}) idle connection, giving up RDY", c->address);
        update_rdy(*c, 0);
      }
    }
    int64_t available = (in_backoff ? 1 : max_in_flight_) - total_rdy_;
    while (!conns.empty() && available > 0) {
      --available;
      std::size_t i = std::uniform_int_distribution<std::size_t>(0, conns.size() - 1)(rng_);
      update_rdy(*conns[i], 1);
      conns.erase(conns.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // ---- backoff (go-nsq's startStopContinueBackoff) ----

  void backoff_signal(BackoffSignal signal) {
    if (backoff_timer_active_ || stopping_) return;
    bool changed = false;
    if (signal == BackoffSignal::resume && backoff_level_ > 0) {
      --backoff_level_;
      changed = true;
    } else if (signal == BackoffSignal::backoff && can_raise_backoff(config_, backoff_level_)) {
      ++backoff_level_;
      changed = true;
    }
    if (backoff_level_ == 0 && changed) {
      int64_t share = per_connection_rdy(max_in_flight_, ready_conns().size());
      logger_->warn("[{}/{}] exiting backoff, returning all to RDY {}", topic_, channel_, share);
      rebalance();
    } else if (backoff_level_ > 0) {
      auto wait = backoff_duration(config_, backoff_level_, rng_);
      logger_->warn("[{}/{}] backing off for {} (backoff level {}), setting all to RDY 0", topic_,
                    channel_, flags::format_go_duration(wait), backoff_level_);
      for (auto& c : ready_conns()) update_rdy(*c, 0);
      backoff_timer_active_ = true;
      backoff_timer_.expires_after(wait);
      backoff_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec) return;
        self->backoff_timer_active_ = false;
        self->after_backoff_wait();
      });
    }
  }

  // One random connection gets RDY 1 to test the water.
  void after_backoff_wait() {
    if (stopping_) return;
    auto conns = ready_conns();
    if (conns.empty()) return;
    auto& c = conns[std::uniform_int_distribution<std::size_t>(0, conns.size() - 1)(rng_)];
    logger_->warn("[{}/{}] ({}) backoff timeout expired, sending RDY 1", topic_, channel_,
                  c->address);
    update_rdy(*c, 1);
  }

  // ---- stop ----

  void begin_stop() {
    if (stopping_) return;
    stopping_ = true;
    logger_->info("[{}/{}] stopping...", topic_, channel_);
    backoff_timer_.cancel();
    redistribute_timer_.cancel();
    for (auto& t : reconnect_timers_) t->cancel();
    poller_.request_stop();  // shutdown() joins it: its HTTP calls block
    std::vector<std::shared_ptr<Conn>> conns;
    {
      std::lock_guard lock(mu_);
      for (auto& [address, conn] : conns_) conns.push_back(conn);
    }
    for (auto& c : conns) {
      if (c->subscribed && !c->connection->closed()) {
        c->closing = true;
        c->connection->send(commands::kCls);
      } else {
        c->connection->close();
      }
    }
    stop_timer_.expires_after(kStopTimeout);
    stop_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return;
      self->logger_->warn("[{}/{}] closing connections after the stop timeout", self->topic_,
                          self->channel_);
      std::vector<std::shared_ptr<Conn>> left;
      {
        std::lock_guard lock(self->mu_);
        for (auto& [address, conn] : self->conns_) left.push_back(conn);
      }
      for (auto& c : left) c->connection->close();
    });
    maybe_finish_stop();
  }

  void maybe_finish_stop() {
    {
      std::lock_guard lock(mu_);
      if (!conns_.empty() || stopped_) return;
    }
    stop_timer_.cancel();
    handlers_.close();
    logger_->info("[{}/{}] stopped", topic_, channel_);
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
    }
    stopped_cv_.notify_all();
  }

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

Consumer::Consumer(std::string topic, std::string channel, Config config,
                   std::shared_ptr<spdlog::logger> logger)
    : impl_(std::make_shared<Impl>(std::move(topic), std::move(channel), std::move(config),
                                   std::move(logger))) {}

Consumer::~Consumer() { impl_->shutdown(); }

void Consumer::set_handler(MessageHandler handler, int concurrency) {
  impl_->set_handler(std::move(handler), concurrency);
}

void Consumer::set_failed_message_hook(std::function<void(const Message&)> hook) {
  impl_->set_failed_message_hook(std::move(hook));
}

tl::expected<void, std::string> Consumer::connect_to_nsqd(const std::string& address) {
  return impl_->connect_to_nsqd(address);
}

tl::expected<void, std::string> Consumer::connect_to_nsqds(
    const std::vector<std::string>& addresses) {
  for (const auto& a : addresses)
    if (auto ok = impl_->connect_to_nsqd(a); !ok) return ok;
  return {};
}

tl::expected<void, std::string> Consumer::connect_to_lookupd(const std::string& address) {
  return impl_->connect_to_lookupd(address);
}

tl::expected<void, std::string> Consumer::connect_to_lookupds(
    const std::vector<std::string>& addresses) {
  for (const auto& a : addresses)
    if (auto ok = impl_->connect_to_lookupd(a); !ok) return ok;
  return {};
}

void Consumer::stop() { impl_->stop(); }
void Consumer::wait() { impl_->wait_for(std::nullopt); }
bool Consumer::wait_for(std::chrono::milliseconds timeout) { return impl_->wait_for(timeout); }
void Consumer::change_max_in_flight(int n) { impl_->change_max_in_flight(n); }
bool Consumer::is_starved() const { return impl_->is_starved(); }
ConsumerStats Consumer::stats() const { return impl_->stats(); }
const std::string& Consumer::topic() const { return impl_->topic(); }
const std::string& Consumer::channel() const { return impl_->channel(); }

}  // namespace nsq::client
