#include "core/context.h"

#include <mutex>

namespace nsq::nsqd {

std::error_code perform_disk_writes(DiskWrites& writes) {
  std::error_code first;
  for (DiskWrite& w : writes) {
    std::vector<std::string_view> views(w.records.begin(), w.records.end());
    std::error_code ec = w.queue->put_batch(views, w.durability);
    if (w.done) w.done(ec);
    if (ec && !first) first = ec;
  }
  return first;
}

std::error_code perform_disk_writes_now(DiskWrites& writes) {
  // Larger writes (a big MPUB) would hold the calling I/O thread, and every
  // connection on it, for milliseconds: they go to the disk pool.
  constexpr std::size_t kMaxBytesNow = 256 * 1024;
  std::error_code first;
  std::erase_if(writes, [&](DiskWrite& w) {
    if (w.durability != diskqueue::Durability::written) return false;
    std::size_t bytes = 0;
    for (const std::string& r : w.records) bytes += r.size();
    if (bytes > kMaxBytesNow) return false;
    std::vector<std::string_view> views(w.records.begin(), w.records.end());
    std::error_code ec = w.queue->try_put_batch(views);
    if (ec == diskqueue::make_error_code(diskqueue::errc::busy)) return false;
    if (w.done) w.done(ec);
    if (ec && !first) first = ec;
    return true;
  });
  return first;
}

void perform_disk_writes_async(DiskWrites writes, std::function<void(std::error_code)> done) {
  // The last write to finish reports for all of them.
  struct Progress {
    std::mutex mu;
    std::size_t left;
    std::vector<std::error_code> results;
    std::vector<std::function<void(std::error_code)>> write_done;
    std::function<void(std::error_code)> done;
  };
  auto progress = std::make_shared<Progress>();
  progress->left = writes.size();
  progress->results.resize(writes.size());
  progress->done = std::move(done);
  for (DiskWrite& w : writes) progress->write_done.push_back(std::move(w.done));
  auto finish = [progress](std::size_t i, std::error_code ec) {
    {
      std::lock_guard lock(progress->mu);
      progress->results[i] = ec;
      if (--progress->left > 0) return;
    }
    std::error_code first;
    for (std::size_t k = 0; k < progress->results.size(); ++k) {
      if (progress->write_done[k]) progress->write_done[k](progress->results[k]);
      if (progress->results[k] && !first) first = progress->results[k];
    }
    progress->write_done.clear();
    progress->done(first);
  };
  if (writes.empty()) {
    progress->done({});
    return;
  }
  for (std::size_t i = 0; i < writes.size(); ++i) {
    DiskWrite& w = writes[i];
    std::error_code ec = w.queue->put_batch_async(std::move(w.records), w.durability,
                                                  [finish, i](std::error_code e) { finish(i, e); });
    if (ec) finish(i, ec);
  }
}

std::int64_t unix_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace nsq::nsqd
