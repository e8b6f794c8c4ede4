// put_batch_async: puts that do not hold a thread while they wait.
//
// Callers only append to a list; one executor job at a time takes the whole
// list and writes it as a single put_batch (one pwrite, and one fdatasync
// when any of them is durable), then reports to each caller and queues the
// next job for whatever arrived meanwhile. So the group written next is
// everything that arrived during the previous write and fsync, and nobody
// sleeps on a thread of their own: with many single-message publishers this is what lets one
// fsync carry all of them (the blocking put needs a thread per publisher,
// and as many thread wake-ups).
#include <algorithm>

#include "disk_queue_internal.h"

namespace nsq::diskqueue {
namespace {

// How long a durable group may wait for the callers the previous group
// released to come back (at most half that group's time, and this).
constexpr std::chrono::microseconds kMaxGather{1000};

}  // namespace

std::error_code DiskQueue::put_batch_async(std::vector<std::string> records,
                                           Durability durability, PutCallback done) {
  for (const std::string& r : records) {
    if (!size_ok(r.size())) return make_error_code(errc::invalid_size);
  }
  if (!options_.executor) {
    std::vector<std::string_view> views(records.begin(), records.end());
    std::error_code ec = put_batch(views, durability);
    if (ec == make_error_code(errc::exiting)) return ec;
    done(ec);
    return {};
  }
  std::function<void(std::function<void()>)> executor;
  {
    std::lock_guard lock(async_mu_);
    if (async_closed_) return make_error_code(errc::exiting);
    if (durability == Durability::fsync || options_.sync_every <= 1) async_durable_ = true;
    async_pending_.push_back(AsyncPut{std::move(records), std::move(done)});
    if (async_gathering_ && async_pending_.size() >= async_last_group_) async_cv_.notify_all();
    if (async_running_) return {};
    async_running_ = true;
    // A copy, taken under the lock: see run_async_puts.
    executor = options_.executor;
  }
  executor([this] { run_async_puts(); });
  return {};
}

// The executor job: writes one group, then leaves what arrived meanwhile to
// a fresh job at the back of the executor's queue, so that a queue under
// steady load never keeps an executor thread from other work (other queues,
// and whatever else the application runs there).
void DiskQueue::run_async_puts() {
  std::unique_lock lock(async_mu_);
  // Callers the last durable group released usually put again at once;
  // without a short wait they would miss this group by a hair and ride the
  // next, the crowd splitting into halves that take turns.
  if (async_durable_ && async_pending_.size() < async_last_group_ && !async_closed_) {
    auto wait = std::min(async_last_time_ / 2, kMaxGather);
    async_gathering_ = true;
    async_cv_.wait_for(lock, wait, [&] {
      return async_pending_.size() >= async_last_group_ || async_closed_;
    });
    async_gathering_ = false;
  }
  if (async_pending_.empty()) {
    async_running_ = false;
    async_cv_.notify_all();
    return;
  }
  std::vector<AsyncPut> group;
  group.swap(async_pending_);
  const bool durable = async_durable_;
  const std::size_t members = group.size();
  async_durable_ = false;
  lock.unlock();

  std::vector<std::string_view> views;
  for (const AsyncPut& p : group) views.insert(views.end(), p.records.begin(), p.records.end());
  auto started = std::chrono::steady_clock::now();
  std::error_code ec = views.empty() ? std::error_code{} : append_and_wait(views, durable);
  auto took = std::chrono::steady_clock::now() - started;
  for (AsyncPut& p : group) p.done(ec);
  group.clear();  // what the callbacks held is released before the lock is retaken

  lock.lock();
  if (durable) {
    // The largest recent group, forgotten slowly: a group that missed a
    // few late callers must not lower the bar for the next one.
    async_last_group_ = std::max(members, async_last_group_ > 0 ? async_last_group_ - 1 : 0);
    async_last_time_ = std::chrono::duration_cast<std::chrono::microseconds>(took);
  }
  if (async_pending_.empty()) {
    async_running_ = false;
    async_cv_.notify_all();
    return;
  }
  // Called through a copy: once queued, the next job may run, finish, and
  // let close() return and the queue be destroyed before this call returns,
  // so nothing of the queue may be touched from here on.
  auto executor = options_.executor;
  lock.unlock();
  executor([this] { run_async_puts(); });
}

void DiskQueue::finish_async_puts() {
  std::unique_lock lock(async_mu_);
  async_closed_ = true;
  async_cv_.notify_all();
  async_cv_.wait(lock, [&] { return !async_running_; });
}

}  // namespace nsq::diskqueue
