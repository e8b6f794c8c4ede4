#include "nsq/client/consumer.h"

#include "consumer_impl.h"

namespace nsq::client {

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
