// The Consumer's flow control: RDY shared across connections (go-nsq's
// rules), backoff after failures, and a clean stop.
#include "consumer_impl.h"

#include <spdlog/spdlog.h>

#include "nsq/flags/go_duration.h"

namespace nsq::client {

namespace {

constexpr auto kStopTimeout = std::chrono::seconds(30);

}  // namespace

std::size_t Consumer::Impl::ready_count() const {
  std::size_t n = 0;
  for (const auto& [address, conn] : conns_)
    if (conn->subscribed && !conn->closing) ++n;
  return n;
}

std::vector<std::shared_ptr<Consumer::Impl::Conn>> Consumer::Impl::ready_conns() {
  std::vector<std::shared_ptr<Conn>> out;
  std::lock_guard lock(mu_);
  for (const auto& [address, conn] : conns_)
    if (conn->subscribed && !conn->closing && !conn->connection->closed()) out.push_back(conn);
  return out;
}

void Consumer::Impl::update_rdy(Conn& conn, int64_t count) {
  if (conn.closing || !conn.subscribed || conn.connection->closed()) return;
  count = std::min(count, conn.connection->settings().max_rdy_count);
  int64_t max_possible = max_in_flight_ - total_rdy_ + conn.rdy.load();
  count = std::max<int64_t>(0, std::min(count, max_possible));
  total_rdy_ += count - conn.rdy.load();
  conn.rdy = count;
  conn.last_rdy_change = Clock::now();
  conn.connection->send(commands::rdy(count));
}

void Consumer::Impl::rebalance() {
  if (stopping_ || backoff_level_ > 0) return;
  auto conns = ready_conns();
  int64_t share = per_connection_rdy(max_in_flight_, conns.size());
  for (auto& c : conns)
    if (c->rdy.load() > share) update_rdy(*c, share);
  for (auto& c : conns)
    if (c->rdy.load() < share) update_rdy(*c, share);
}

void Consumer::Impl::schedule_redistribute() {
  redistribute_timer_.expires_after(config_.rdy_redistribute_interval);
  redistribute_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->stopping_) return;
    self->redistribute();
    self->schedule_redistribute();
  });
}

void Consumer::Impl::redistribute() {
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

void Consumer::Impl::backoff_signal(BackoffSignal signal) {
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

void Consumer::Impl::after_backoff_wait() {
  if (stopping_) return;
  auto conns = ready_conns();
  if (conns.empty()) return;
  auto& c = conns[std::uniform_int_distribution<std::size_t>(0, conns.size() - 1)(rng_)];
  logger_->warn("[{}/{}] ({}) backoff timeout expired, sending RDY 1", topic_, channel_,
                c->address);
  update_rdy(*c, 1);
}

void Consumer::Impl::begin_stop() {
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

void Consumer::Impl::maybe_finish_stop() {
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

}  // namespace nsq::client
