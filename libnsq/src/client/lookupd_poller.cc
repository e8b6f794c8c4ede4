#include "lookupd_poller.h"

#include <spdlog/spdlog.h>

namespace nsq::client {

LookupdPoller::LookupdPoller(std::string topic, const Config& config, spdlog::logger& log,
                             Found found)
    : topic_(std::move(topic)), config_(config), log_(log), found_(std::move(found)) {}

LookupdPoller::~LookupdPoller() { stop(); }

bool LookupdPoller::add(const LookupdEndpoint& endpoint) {
  std::lock_guard lock(mu_);
  for (const auto& e : endpoints_) {
    if (e.host == endpoint.host && e.port == endpoint.port && e.path == endpoint.path) return false;
  }
  endpoints_.push_back(endpoint);
  if (!thread_.joinable() && !stopped_) thread_ = std::thread([this] { run(); });
  return true;
}

void LookupdPoller::recheck() {
  {
    std::lock_guard lock(mu_);
    recheck_ = true;
  }
  cv_.notify_all();
}

void LookupdPoller::request_stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

void LookupdPoller::stop() {
  request_stop();
  std::lock_guard lock(join_mu_);
  if (thread_.joinable()) thread_.join();
}

void LookupdPoller::run() {
  query();
  auto jitter = std::chrono::duration_cast<std::chrono::nanoseconds>(
      config_.lookupd_poll_interval * config_.lookupd_poll_jitter *
      std::uniform_real_distribution<double>(0, 1)(rng_));
  auto next = std::chrono::steady_clock::now() + jitter;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, next, [&] { return stopped_ || recheck_; });
      if (stopped_) return;
      recheck_ = false;
    }
    query();
    next = std::chrono::steady_clock::now() + config_.lookupd_poll_interval;
  }
}

void LookupdPoller::query() {
  auto timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(config_.lookupd_poll_timeout);
  for (int attempt = 0; attempt < 3; ++attempt) {
    LookupdEndpoint endpoint;
    {
      std::lock_guard lock(mu_);
      if (stopped_ || endpoints_.empty()) return;
      endpoint = endpoints_[next_++ % endpoints_.size()];
    }
    log_.info("querying nsqlookupd http://{}:{}{}?topic={}", endpoint.host, endpoint.port,
              endpoint.path, topic_);
    // go-nsq sends the secret to lookupd when skip_lookupd_authorization is
    // true (the option's name says the opposite; its behaviour is the fact).
    std::string bearer = config_.skip_lookupd_authorization ? config_.auth_secret : std::string();
    auto producers = query_lookupd(endpoint, topic_, timeout, bearer);
    if (producers) {
      found_(std::move(*producers));
      return;
    }
    log_.error("error querying nsqlookupd (http://{}:{}{}) - {}", endpoint.host, endpoint.port,
               endpoint.path, producers.error());
  }
}

}  // namespace nsq::client
