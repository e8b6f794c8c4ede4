#include "async_puts.h"

#include <algorithm>
#include <string_view>

namespace nsq::diskqueue {
namespace {

// How long a durable group may wait for the callers the previous group
// released to come back (at most half that group's time, and this).
constexpr std::chrono::microseconds kMaxGather{1000};

}  // namespace

AsyncPuts::AsyncPuts(std::function<void(std::function<void()>)> executor, GroupCommit& group)
    : executor_(std::move(executor)), group_(group) {}

std::error_code AsyncPuts::put(std::vector<std::string> records, bool durable, PutCallback done) {
  std::function<void(std::function<void()>)> executor;
  {
    std::lock_guard lock(mu_);
    if (closed_) return make_error_code(errc::exiting);
    if (durable) durable_ = true;
    pending_.push_back(Pending{std::move(records), std::move(done)});
    if (gathering_ && pending_.size() >= last_group_) cv_.notify_all();
    if (running_) return {};
    running_ = true;
    // A copy, taken under the lock: see the end of run().
    executor = executor_;
  }
  executor([this] { run(); });
  return {};
}

bool AsyncPuts::idle() {
  std::lock_guard lock(mu_);
  return !running_ && pending_.empty();
}

// Writes one group, then leaves what arrived meanwhile to a fresh job at the
// back of the executor's queue, so that a queue under steady load never
// keeps an executor thread from other work (other queues, and whatever else
// the application runs there).
void AsyncPuts::run() {
  std::unique_lock lock(mu_);
  // Callers the last durable group released usually put again at once;
  // without a short wait they would miss this group by a hair and ride the
  // next, the crowd splitting into halves that take turns.
  if (durable_ && pending_.size() < last_group_ && !closed_) {
    auto wait = std::min(last_time_ / 2, kMaxGather);
    gathering_ = true;
    cv_.wait_for(lock, wait, [&] { return pending_.size() >= last_group_ || closed_; });
    gathering_ = false;
  }
  if (pending_.empty()) {
    running_ = false;
    cv_.notify_all();
    return;
  }
  std::vector<Pending> group;
  group.swap(pending_);
  const bool durable = durable_;
  const std::size_t members = group.size();
  durable_ = false;
  lock.unlock();

  std::vector<std::string_view> views;
  for (const Pending& p : group) views.insert(views.end(), p.records.begin(), p.records.end());
  auto started = std::chrono::steady_clock::now();
  std::error_code ec = views.empty() ? std::error_code{} : group_.append_and_wait(views, durable);
  auto took = std::chrono::steady_clock::now() - started;
  for (Pending& p : group) p.done(ec);
  group.clear();  // what the callbacks held is released before the lock is retaken

  lock.lock();
  if (durable) {
    // The largest recent group, forgotten slowly: a group that missed a
    // few late callers must not lower the bar for the next one.
    last_group_ = std::max(members, last_group_ > 0 ? last_group_ - 1 : 0);
    last_time_ = std::chrono::duration_cast<std::chrono::microseconds>(took);
  }
  if (pending_.empty()) {
    running_ = false;
    cv_.notify_all();
    return;
  }
  // Called through a copy: once queued, the next job may run, finish, and
  // let close() return and the queue be destroyed before this call returns,
  // so nothing of the queue may be touched from here on.
  auto executor = executor_;
  lock.unlock();
  executor([this] { run(); });
}

void AsyncPuts::finish() {
  std::unique_lock lock(mu_);
  closed_ = true;
  cv_.notify_all();
  cv_.wait(lock, [&] { return !running_; });
}

}  // namespace nsq::diskqueue
