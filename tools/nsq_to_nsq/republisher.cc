#include "republisher.h"

#include <chrono>

#include "common/go_log.h"

namespace nsq::tools::to_nsq_bridge {

Republisher::Republisher(const NsqToNsqOptions& options, std::vector<client::Producer*> producers)
    : mode_(options.mode),
      filter_(options.require_json_field, options.require_json_value,
              options.whitelist_json_fields),
      producers_(std::move(producers)),
      host_pool_(options.destinations),
      aggregate_(options.status_every, "[aggregate]:") {
  // With one destination its own report would repeat the aggregate one.
  for (const auto& address : options.destinations) {
    per_destination_.push_back(
        options.destinations.size() == 1
            ? std::make_unique<TimerMetrics>(0, "")
            : std::make_unique<TimerMetrics>(options.status_every, "[" + address + "]:"));
  }
}

std::size_t Republisher::pick_destination() {
  if (mode_ == DestinationMode::host_pool) return host_pool_.pick();
  // As Go: the counter is incremented first, so the first message goes to
  // the second destination.
  std::uint64_t n = counter_.fetch_add(1) + 1;
  return static_cast<std::size_t>(n % producers_.size());
}

client::HandlerResult Republisher::handle(client::Message& message,
                                          const std::string& destination_topic) {
  std::string body;
  if (filter_.active()) {
    FilterDecision decision = filter_.apply(message.body());
    if (!decision.log.empty()) log_line(decision.log);
    switch (decision.action) {
      case FilterDecision::Action::drop:
        return {};
      case FilterDecision::Action::requeue:
        return tl::unexpected(std::string("backoff"));
      case FilterDecision::Action::publish:
        body = std::move(decision.body);
        break;
    }
  } else {
    body = message.body();
  }

  auto start = TimerMetrics::Clock::now();
  std::size_t destination = pick_destination();
  // The publish callback answers the message, maybe before we return.
  message.disable_auto_response();
  producers_[destination]->publish_async(
      destination_topic, std::move(body),
      [this, message, destination, start](client::PublishResult result) {
        on_published(message, destination, start, result);
      });
  return {};
}

void Republisher::on_published(client::Message message, std::size_t destination,
                               TimerMetrics::Clock::time_point start,
                               const client::PublishResult& result) {
  if (mode_ == DestinationMode::host_pool) host_pool_.mark(destination, result.has_value());
  if (result) {
    message.finish();
  } else {
    message.requeue();
  }
  per_destination_[destination]->status(start);
  aggregate_.status(start);
}

}  // namespace nsq::tools::to_nsq_bridge
