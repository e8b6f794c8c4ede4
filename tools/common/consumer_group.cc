#include "common/consumer_group.h"

#include <utility>

#include "common/go_log.h"

namespace nsq::tools {

ConsumerGroup::ConsumerGroup(std::string channel, client::Config config, SourceAddresses sources,
                             std::shared_ptr<spdlog::logger> log)
    : channel_(std::move(channel)),
      config_(std::move(config)),
      sources_(std::move(sources)),
      log_(std::move(log)) {
  if (auto valid = config_.validate(); !valid) log_fatal(valid.error());
}

void ConsumerGroup::add(const std::string& topic, client::MessageHandler handler, int concurrency) {
  auto& consumer =
      consumers_.emplace_back(std::make_unique<client::Consumer>(topic, channel_, config_, log_));
  consumer->set_handler(std::move(handler), concurrency);
  if (auto connected = connect_consumer(*consumer, sources_); !connected) {
    log_fatal(connected.error());
  }
}

void ConsumerGroup::stop() {
  for (auto& consumer : consumers_) consumer->stop();
  for (auto& consumer : consumers_) consumer->wait();
}

}  // namespace nsq::tools
