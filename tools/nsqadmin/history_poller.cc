#include "history_poller.h"

#include <spdlog/spdlog.h>

#include <set>

#include "cluster_info.h"
#include "history.h"

namespace nsq::admin {
namespace {

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A series not seen for this many polls is gone (its topic deleted, its node
// left); a few polls of grace so one slow answer does not wipe a chart.
constexpr int kForgetAfterPolls = 3;

}  // namespace

HistoryPoller::HistoryPoller(const ClusterInfo* cluster, History* history, OptionsFn options,
                             std::shared_ptr<spdlog::logger> log)
    : cluster_(cluster), history_(history), options_(std::move(options)), log_(std::move(log)) {}

HistoryPoller::~HistoryPoller() { stop(); }

void HistoryPoller::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void HistoryPoller::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HistoryPoller::run() {
  const auto interval = history_->shape().interval;
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    poll_once(unix_ms());
    next += interval;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow poll: skip the missed ones, do not burst
    std::unique_lock lock(mu_);
    if (cv_.wait_until(lock, next, [this] { return stopping_; })) return;
  }
}

bool HistoryPoller::poll_once(std::int64_t now_ms) {
  const auto opts = options_();
  auto producers = cluster_->producers(opts->lookupd_http_addresses, opts->nsqd_http_addresses);
  if (producers.fatal) {
    if (log_) log_->debug("history: {}", *producers.fatal);
    return false;
  }
  auto stats = cluster_->nsqd_stats(producers.value, "", "", false);
  if (stats.fatal) {
    if (log_) log_->debug("history: {}", *stats.fatal);
    return false;
  }
  // Which nodes answered: all of them when there was no error, else only
  // those whose topics came back (a node that failed must not read as idle).
  std::vector<std::string> nodes;
  if (stats.errors.empty()) {
    for (const auto& p : producers.value) nodes.push_back(p.http_address());
  } else {
    std::set<std::string> seen;
    for (const auto& t : stats.value.topics) seen.insert(t.node);
    nodes.assign(seen.begin(), seen.end());
  }
  std::size_t refused = 0;
  for (const auto& [key, values] : sampler_.sample(stats.value.topics, nodes, now_ms)) {
    if (!history_->record(key, now_ms, values)) ++refused;
  }
  if (refused != refused_ && refused > 0 && log_) {
    log_->warn("history: {} series not kept (--history-max-series={} reached)", refused,
               history_->shape().max_series);
  }
  refused_ = refused;
  const auto grace = history_->shape().interval.count() * kForgetAfterPolls;
  history_->forget_before(now_ms - grace);
  return true;
}

}  // namespace nsq::admin
