#include "core/disk_writer.h"

#include <mutex>

namespace nsq::nsqd {

namespace {

// Larger writes (a big MPUB) would hold the calling I/O thread, and every
// connection on it, for milliseconds: they go the async way.
constexpr std::size_t kMaxBytesNow = 256 * 1024;

std::vector<std::string_view> views_of(const DiskWrite& w) {
  return std::vector<std::string_view>(w.records.begin(), w.records.end());
}

// Writes, on the calling thread, what a queue can take at once, and removes
// it from `writes`; the first error.
std::error_code write_what_fits_now(DiskWrites& writes) {
  std::error_code first;
  std::erase_if(writes, [&](DiskWrite& w) {
    if (w.durability != diskqueue::Durability::written) return false;
    std::size_t bytes = 0;
    for (const std::string& r : w.records) bytes += r.size();
    if (bytes > kMaxBytesNow) return false;
    std::error_code ec = w.queue->try_put_batch(views_of(w));
    if (ec == diskqueue::make_error_code(diskqueue::errc::busy)) return false;
    if (w.done) w.done(ec);
    if (ec && !first) first = ec;
    return true;
  });
  return first;
}

}  // namespace

std::optional<std::error_code> DiskWriter::submit(DiskWrites writes, Done done) {
  if (writes.empty()) return std::error_code();  // nothing for the disk, nothing to report
  std::error_code now = write_what_fits_now(writes);
  if (writes.empty()) {
    report(now);
    return now;
  }
  write_async(std::move(writes), [this, now, done = std::move(done)](std::error_code ec) {
    const std::error_code first = now ? now : ec;
    report(first);
    if (done) done(first);
  });
  return std::nullopt;
}

void DiskWriter::submit_async(DiskWrites writes, Done done) {
  if (writes.empty()) {
    if (done) done({});
    return;
  }
  write_async(std::move(writes), [this, done = std::move(done)](std::error_code ec) {
    report(ec);
    if (done) done(ec);
  });
}

void DiskWriter::write_async(DiskWrites writes, Done done) {
  // The last write to finish reports for all of them, each write's own
  // `done` first.
  struct Progress {
    std::mutex mu;
    std::size_t left = 0;
    std::vector<std::error_code> results;
    std::vector<Done> write_done;
    Done done;
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
  for (std::size_t i = 0; i < writes.size(); ++i) {
    DiskWrite& w = writes[i];
    std::error_code ec = w.queue->put_batch_async(std::move(w.records), w.durability,
                                                  [finish, i](std::error_code e) { finish(i, e); });
    if (ec) finish(i, ec);
  }
}

std::error_code DiskWriter::write(DiskWrites& writes) {
  if (writes.empty()) return {};
  std::error_code first;
  for (DiskWrite& w : writes) {
    std::error_code ec = w.queue->put_batch(views_of(w), w.durability);
    if (w.done) w.done(ec);
    if (ec && !first) first = ec;
  }
  report(first);
  return first;
}

}  // namespace nsq::nsqd
