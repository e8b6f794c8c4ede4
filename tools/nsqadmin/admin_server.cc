#include "admin_server.h"

#include <spdlog/spdlog.h>

#include "api.h"
#include "cluster_info.h"
#include "history.h"
#include "history_poller.h"
#include "notifier.h"
#include "nsq/http/server.h"

namespace nsq::admin {
namespace {

// Enough for a few slow upstreams without starving the others; each request
// fans out to the upstreams on threads of its own.
constexpr int kWorkers = 8;

}  // namespace

AdminServer::AdminServer(Options options, std::shared_ptr<spdlog::logger> log)
    : options_(std::move(options)), log_(std::move(log)) {
  options_.base_path = normalize_base_path(options_.base_path);
  const UpstreamTimeouts timeouts = upstream_settings(options_);
  cluster_ = std::make_unique<ClusterInfo>(timeouts, log_);
  if (!options_.notification_http_endpoint.empty()) {
    notifier_ = std::make_unique<Notifier>(options_.notification_http_endpoint, timeouts, log_);
  }
  // With graphite, graphite draws the charts (as Go's nsqadmin): no polling of our own.
  if (options_.history_duration.count() > 0 && options_.graphite_url.empty()) {
    HistoryShape shape;
    shape.interval =
        std::chrono::duration_cast<std::chrono::milliseconds>(options_.history_interval);
    shape.duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(options_.history_duration);
    shape.max_series = static_cast<std::size_t>(options_.history_max_series);
    history_ = std::make_unique<History>(shape);
  }
  api_ = std::make_unique<Api>(&options_, cluster_.get(), notifier_.get(), log_, history_.get());
  if (history_) {
    poller_ = std::make_unique<HistoryPoller>(
        cluster_.get(), history_.get(), [this] { return api_->options(); }, log_);
  }
}

AdminServer::~AdminServer() { stop(); }

std::string AdminServer::start() {
  http::ServerOptions server_options;
  server_options.max_body_size = 1024 * 1024;
  auto handler = [this](http::Request req, http::ReplyFn reply) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;  // reply dropped: the server is closing anyway
      jobs_.push_back(
          [this, req = std::move(req), reply = std::move(reply)] { reply(api_->handle(req)); });
    }
    cv_.notify_one();
  };
  server_ = std::make_unique<http::Server>(
      server_options, handler, [this](std::string_view e) { log_->error("HTTP: {}", e); });
  if (std::string err = server_->listen(options_.http_address); !err.empty()) {
    return "listen (" + options_.http_address + ") failed - " + err;
  }
  for (int i = 0; i < kWorkers; ++i) workers_.emplace_back([this] { worker(); });
  server_->start();
  if (poller_) poller_->start();
  log_->info("HTTP: listening on {}", server_->bound_address());
  return {};
}

std::uint16_t AdminServer::port() const { return server_ ? server_->port() : 0; }

void AdminServer::stop() {
  if (poller_) poller_->stop();
  if (server_) server_->stop();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

void AdminServer::worker() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace nsq::admin
