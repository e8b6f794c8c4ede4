#include "delivery_handler.h"

namespace nsq::tools::to_http {

DeliveryHandler::DeliveryHandler(const NsqToHttpOptions& options, const HttpPublisher* publisher)
    : mode_(options.mode),
      sample_(options.sample),
      addresses_(options.addresses),
      publisher_(publisher),
      host_pool_(options.addresses),
      aggregate_(options.status_every, "[aggregate]:") {
  // With one address its own report would repeat the aggregate one.
  for (const auto& address : addresses_) {
    per_address_.push_back(
        addresses_.size() == 1
            ? std::make_unique<TimerMetrics>(0, "")
            : std::make_unique<TimerMetrics>(options.status_every, "[" + address + "]:"));
  }
}

bool DeliveryHandler::sampled_out() {
  if (sample_ >= 1.0) return false;
  // One generator per handler thread: no lock on the hot path.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) > sample_;
}

client::HandlerResult DeliveryHandler::handle(client::Message& message) {
  if (sampled_out()) return {};
  const auto start = TimerMetrics::Clock::now();
  switch (mode_) {
    case DeliveryMode::all:
      for (std::size_t i = 0; i < addresses_.size(); ++i) {
        auto one_start = TimerMetrics::Clock::now();
        if (auto r = publisher_->publish(addresses_[i], message.body()); !r) {
          return tl::unexpected(r.error());
        }
        metrics_for(i).status(one_start);
      }
      break;
    case DeliveryMode::round_robin: {
      // As Go: incremented first, so the first message goes to the second address.
      std::size_t i = static_cast<std::size_t>((counter_.fetch_add(1) + 1) % addresses_.size());
      if (auto r = publisher_->publish(addresses_[i], message.body()); !r) {
        return tl::unexpected(r.error());
      }
      metrics_for(i).status(start);
      break;
    }
    case DeliveryMode::host_pool: {
      std::size_t i = host_pool_.pick();
      auto r = publisher_->publish(addresses_[i], message.body());
      host_pool_.mark(i, r.has_value());
      if (!r) return tl::unexpected(r.error());
      metrics_for(i).status(start);
      break;
    }
  }
  aggregate_.status(start);
  return {};
}

}  // namespace nsq::tools::to_http
