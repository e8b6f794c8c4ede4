// The Consumer's connections and messages, and its public calls.
#include "consumer_impl.h"

#include <spdlog/spdlog.h>

#include "nsq/flags/go_duration.h"
#include "nsq/names.h"

namespace nsq::client {

namespace {

bool looks_like_host_port(const std::string& address) {
  auto colon = address.rfind(':');
  return colon != std::string::npos && colon > 0 && colon + 1 < address.size();
}

}  // namespace

void Consumer::Impl::set_handler(MessageHandler handler, int concurrency) {
  handler_ = std::move(handler);
  concurrency_ = std::max(1, concurrency);
}

void Consumer::Impl::set_failed_message_hook(std::function<void(const Message&)> hook) {
  failed_hook_ = std::move(hook);
}

tl::expected<void, std::string> Consumer::Impl::check_can_connect() {
  if (stop_requested_.load()) return tl::unexpected(std::string("consumer stopped"));
  if (!is_valid_topic_name(topic_)) return tl::unexpected("invalid topic name " + topic_);
  if (!is_valid_channel_name(channel_)) return tl::unexpected("invalid channel name " + channel_);
  if (!handler_) return tl::unexpected(std::string("no handlers"));
  if (auto ok = config_.validate(); !ok) return ok;
  start_once();
  return {};
}

tl::expected<void, std::string> Consumer::Impl::connect_to_nsqd(const std::string& address) {
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

tl::expected<void, std::string> Consumer::Impl::connect_to_lookupd(const std::string& address) {
  if (auto ok = check_can_connect(); !ok) return ok;
  auto endpoint = parse_lookupd_address(address);
  if (!endpoint) return tl::unexpected(endpoint.error());
  uses_lookupd_ = true;
  if (!poller_.add(*endpoint)) return tl::unexpected(std::string("lookupd address already exists"));
  return {};
}

void Consumer::Impl::stop() {
  if (stop_requested_.exchange(true)) return;
  io_.post([self = shared_from_this()] { self->begin_stop(); });
}

bool Consumer::Impl::wait_for(std::optional<std::chrono::milliseconds> timeout) {
  std::unique_lock lock(mu_);
  auto done = [&] { return stopped_; };
  if (timeout) return stopped_cv_.wait_for(lock, *timeout, done);
  stopped_cv_.wait(lock, done);
  return true;
}

void Consumer::Impl::shutdown() {
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

void Consumer::Impl::change_max_in_flight(int n) {
  io_.post([self = shared_from_this(), n] {
    self->max_in_flight_ = n;
    self->rebalance();
  });
}

bool Consumer::Impl::is_starved() const {
  std::lock_guard lock(mu_);
  for (const auto& [address, conn] : conns_) {
    int64_t in_flight = conn->in_flight.load();
    int64_t threshold = static_cast<int64_t>(static_cast<double>(conn->rdy.load()) * 0.85);
    if (in_flight > 0 && in_flight >= threshold && !conn->closing) return true;
  }
  return false;
}

ConsumerStats Consumer::Impl::stats() const {
  ConsumerStats s;
  s.messages_received = received_.load();
  s.messages_finished = finished_.load();
  s.messages_requeued = requeued_.load();
  std::lock_guard lock(mu_);
  for (const auto& [address, conn] : conns_)
    if (conn->connection && conn->connection->ready()) ++s.connections;
  return s;
}

void Consumer::Impl::start_once() {
  if (started_.exchange(true)) return;
  handlers_.start(concurrency_, [this](Message& m, bool over_max) { handle(m, over_max); });
  io_.post([self = shared_from_this()] { self->schedule_redistribute(); });
}

void Consumer::Impl::handle(Message& message, bool over_max_attempts) {
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

void Consumer::Impl::post_answer(Conn* conn, const Message& message, Answer answer,
                                 std::chrono::milliseconds delay, bool backoff) {
  std::weak_ptr<Conn> weak = find_conn(conn);
  io_.post([self = shared_from_this(), weak, id = message.id(), attempts = message.attempts(),
            answer, delay, backoff] {
    auto c = weak.lock();
    if (!c) return;
    self->answer(*c, id, attempts, answer, delay, backoff);
  });
}

std::weak_ptr<Consumer::Impl::Conn> Consumer::Impl::find_conn(Conn* raw) {
  std::lock_guard lock(mu_);
  for (const auto& [address, conn] : conns_)
    if (conn.get() == raw) return conn;
  return {};
}

void Consumer::Impl::on_lookupd_found(std::vector<std::string> addresses) {
  io_.post([self = shared_from_this(), addresses = std::move(addresses)] {
    for (const auto& a : addresses) self->connect(a);
  });
}

void Consumer::Impl::connect(const std::string& address) {
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

std::shared_ptr<Consumer::Impl::Conn> Consumer::Impl::conn_of(Connection& connection) {
  std::lock_guard lock(mu_);
  auto it = conns_.find(connection.address());
  if (it == conns_.end() || it->second->connection.get() != &connection) return nullptr;
  return it->second;
}

void Consumer::Impl::on_ready(Connection& connection) {
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

void Consumer::Impl::on_response(Connection& connection, std::string_view data) {
  auto conn = conn_of(connection);
  if (!conn) return;
  if (data == "CLOSE_WAIT") {
    logger_->info("[{}/{}] ({}) received CLOSE_WAIT from nsqd", topic_, channel_, conn->address);
    conn->closing = true;
    conn->close_wait = true;
    maybe_close(*conn);
  }
}

void Consumer::Impl::on_error_frame(Connection& connection, std::string_view data) {
  logger_->error("[{}/{}] ({}) protocol error - {}", topic_, channel_, connection.address(), data);
}

void Consumer::Impl::on_message(Connection& connection, const MessageHeader& header,
                                std::string body) {
  auto conn = conn_of(connection);
  if (!conn) return;
  ++conn->in_flight;
  ++received_;
  conn->last_message = Clock::now();
  Message message(header, std::move(body), conn->address, std::weak_ptr<MessageResponder>(conn));
  bool over = config_.max_attempts > 0 && header.attempts > config_.max_attempts;
  handlers_.push(std::move(message), over);
}

void Consumer::Impl::on_closed(Connection& connection, const std::string& reason) {
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

void Consumer::Impl::schedule_reconnect(const std::string& address) {
  logger_->info("[{}/{}] ({}) re-connecting in {}", topic_, channel_, address,
                flags::format_go_duration(config_.lookupd_poll_interval));
  auto timer = std::make_shared<boost::asio::steady_timer>(io_.io());
  timer->expires_after(config_.lookupd_poll_interval);
  timer->async_wait([self = shared_from_this(), timer, address](boost::system::error_code ec) {
    if (!ec) self->connect(address);
  });
  reconnect_timers_.push_back(timer);
}

void Consumer::Impl::answer(Conn& conn, const MessageId& id, int attempts, Answer what,
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

void Consumer::Impl::maybe_close(Conn& conn) {
  if (conn.close_wait && conn.in_flight.load() <= 0 && conn.connection)
    conn.connection->close_when_flushed();
}

}  // namespace nsq::client
