// Puts and group commit.
//
// A put appends its records to the open batch (a memcpy under mu_) and waits
// on the batch's state word. Two roles do the I/O, each held by at most one
// caller at a time, and taken by whichever waiting caller sees it free with
// work behind it:
//   - the writer takes the open batch (new puts start a new one) and writes
//     it with one pwrite;
//   - the syncer fdatasyncs every batch written so far that asked for
//     durability, with one fdatasync.
// So group N+1 is appended and written while group N's fsync runs, and one
// fsync covers every group written meanwhile. Finishing a batch wakes all its
// callers with one futex call (std::atomic::wait/notify_all); they learn the
// outcome from the batch without taking mu_, so the wake-up herd does not
// queue on the mutex. A role holder that is done with its own put hands the
// role on (to the open batch, or to the oldest batch waiting for an fsync)
// instead of working for others indefinitely.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "disk_queue_internal.h"
#include "file_io.h"

namespace nsq::diskqueue {
namespace {

// The syncer waits at most this long (and at most half an fsync) for the
// writers of the previous group to come back, so that one fsync carries them
// all rather than every other fsync carrying half of them.
constexpr std::chrono::microseconds kMaxGather{1000};
// A written batch's buffer is kept for the next batch unless it grew past this.
constexpr std::size_t kMaxSpare = 4 * 1024 * 1024;

}  // namespace

std::error_code DiskQueue::put(std::string_view record, Durability durability) {
  return put_batch(std::span<const std::string_view>(&record, 1), durability);
}

bool DiskQueue::size_ok(std::size_t record_size) const {
  auto size = static_cast<std::int64_t>(record_size);
  return size >= options_.min_msg_size && size <= options_.max_msg_size;
}

std::error_code DiskQueue::put_batch(std::span<const std::string_view> records,
                                     Durability durability) {
  for (std::string_view r : records) {
    if (!size_ok(r.size())) return make_error_code(errc::invalid_size);
  }
  if (records.empty()) return {};
  return append_and_wait(records, durability == Durability::fsync || options_.sync_every <= 1);
}

std::error_code DiskQueue::try_put_batch(std::span<const std::string_view> records) {
  std::int64_t bytes = 0;
  for (std::string_view r : records) {
    if (!size_ok(r.size())) return make_error_code(errc::invalid_size);
    bytes += 4 + static_cast<std::int64_t>(r.size());
  }
  if (records.empty()) return {};
  if (options_.sync_every <= 1) return make_error_code(errc::busy);
  {
    // Puts handed to the executor go first (their callers wait for them).
    std::lock_guard async_lock(async_mu_);
    if (async_running_ || !async_pending_.empty()) return make_error_code(errc::busy);
  }
  std::unique_lock lock(mu_);
  if (closed_) return make_error_code(errc::exiting);
  if (writing_ || control_waiting_ > 0 || (open_ && open_->records > 0)) {
    return make_error_code(errc::busy);
  }
  if (write_pos_ > 0 && write_pos_ + bytes > options_.max_bytes_per_file) {
    return make_error_code(errc::busy);
  }
  if (preallocating() && (!write_file_ || write_pos_ + bytes > write_file_->filled_to)) {
    return make_error_code(errc::busy);  // the zero fill writes up to a MiB
  }
  writing_ = true;
  std::string data;
  data.reserve(static_cast<std::size_t>(bytes));
  for (std::string_view r : records) {
    detail::append_u32be(data, static_cast<std::uint32_t>(r.size()));
    data.append(r);
  }
  std::error_code ec = write_records(lock, data, static_cast<std::int64_t>(records.size()));
  release_writer(lock);
  return ec;
}

std::error_code DiskQueue::append_and_wait(std::span<const std::string_view> records,
                                           bool durable) {
  std::unique_lock lock(mu_);
  if (closed_) return make_error_code(errc::exiting);
  if (!open_) {
    open_ = std::make_shared<Batch>();
    open_->data.swap(spare_);
    open_->data.clear();
  }
  std::shared_ptr<Batch> mine = open_;
  for (std::string_view r : records) {
    detail::append_u32be(mine->data, static_cast<std::uint32_t>(r.size()));
    mine->data.append(r);
  }
  mine->records += static_cast<std::int64_t>(records.size());
  if (durable) {
    mine->durable = true;
    ++mine->durable_members;
    ++durable_arrivals_;
    if (gathering_) gather_cv_.notify_one();
  } else {
    ++mine->plain_members;
  }
  std::uint32_t need = durable ? Batch::kDone : Batch::kWritten;
  drive(lock, *mine, need);
  lock.unlock();
  if (mine->write_ec) return mine->write_ec;
  return durable ? mine->sync_ec : std::error_code{};
}

// Waits until `mine` reaches `need`, taking a free role whenever one has work.
void DiskQueue::drive(std::unique_lock<std::mutex>& lock, Batch& mine, std::uint32_t need) {
  for (;;) {
    std::uint32_t state = mine.state.load(std::memory_order_acquire);
    if (state >= need) return;
    if (!writing_ && control_waiting_ == 0 && open_ && open_->records > 0) {
      write_batches(lock, mine, need);
      continue;
    }
    if (!syncing_ && !unsynced_.empty()) {
      sync_batches(lock);
      continue;
    }
    // Whoever frees a role with work for it marks the batch that work
    // belongs to (kTurn, kSyncTurn), so some waiter always wakes to take it.
    lock.unlock();
    mine.state.wait(state, std::memory_order_acquire);
    lock.lock();
  }
}

// Writer role: writes open batches until the caller's own put is done or an
// fsync should start, then hands the role on.
void DiskQueue::write_batches(std::unique_lock<std::mutex>& lock, const Batch& mine,
                              std::uint32_t need) {
  writing_ = true;
  while (open_ && open_->records > 0 && control_waiting_ == 0) {
    write_open_batch(lock);
    if (mine.state.load(std::memory_order_relaxed) >= need) break;
    if (!syncing_ && !unsynced_.empty()) break;  // go and fsync what is written
  }
  release_writer(lock);
}

// Writes open_ with the writer role held; `lock` held on entry and exit.
void DiskQueue::write_open_batch(std::unique_lock<std::mutex>& lock) {
  std::shared_ptr<Batch> b = std::move(open_);
  open_.reset();
  b->state.store(Batch::kWriting, std::memory_order_relaxed);
  std::error_code ec = write_records(lock, b->data, b->records);
  b->write_ec = ec;
  if (b->data.capacity() <= kMaxSpare) spare_ = std::move(b->data);
  b->data = std::string();
  if (ec || !b->durable) {
    b->state.store(Batch::kDone, std::memory_order_release);
    b->state.notify_all();
    return;
  }
  b->file = write_file_;
  b->state.store(Batch::kWritten, std::memory_order_release);
  if (b->plain_members > 0) b->state.notify_all();
  unsynced_records_ += b->records;
  unsynced_.push_back(std::move(b));
  if (gathering_) gather_cv_.notify_one();
}

void DiskQueue::release_writer(std::unique_lock<std::mutex>&) {
  writing_ = false;
  if (gathering_) gather_cv_.notify_one();
  if (control_waiting_ > 0) {
    control_cv_.notify_all();
    return;
  }
  if (!open_) return;
  if (closed_) {
    // Appended after close() finished the pending puts.
    std::shared_ptr<Batch> b = std::move(open_);
    open_.reset();
    b->write_ec = make_error_code(errc::exiting);
    b->state.store(Batch::kDone, std::memory_order_release);
    b->state.notify_all();
    return;
  }
  if (open_->records > 0) {
    open_->state.store(Batch::kTurn, std::memory_order_release);
    open_->state.notify_one();
  }
}

// Syncer role: one fdatasync for every batch written and not yet synced.
// `lock` held on entry and exit.
void DiskQueue::sync_batches(std::unique_lock<std::mutex>& lock) {
  syncing_ = true;
  // Gather: callers released by the previous fsync usually put again at
  // once. Without waiting for them they would always miss this fsync by a
  // hair and ride the next one, so the callers split into two halves that
  // take turns, each fsync carrying half of them. Wait (a little) until as
  // many durable callers arrived as the last fsync released, and everything
  // appended is written.
  auto gathered = [&] {
    return durable_arrivals_ >= released_ && !writing_ && !(open_ && open_->records > 0);
  };
  if (!gathered()) {
    auto until = std::chrono::steady_clock::now() + std::min(last_fsync_time_ / 2, kMaxGather);
    gathering_ = true;
    gather_cv_.wait_until(lock, until, gathered);
    gathering_ = false;
  }
  std::vector<std::shared_ptr<Batch>> group(unsynced_.begin(), unsynced_.end());
  unsynced_.clear();
  std::int64_t records = unsynced_records_;
  unsynced_records_ = 0;
  // Usually one file; two when the writer rolled to a new segment meanwhile
  // (the old one was fsynced by the roll, so its fsync here costs nothing).
  std::vector<std::shared_ptr<File>> files;
  for (const auto& b : group) {
    if (b->file && std::find(files.begin(), files.end(), b->file) == files.end()) {
      files.push_back(b->file);
    }
  }
  lock.unlock();
  auto started = std::chrono::steady_clock::now();
  std::error_code ec;
  for (const auto& file : files) {
    if (::fdatasync(file->fd) != 0) {
      ec = file_io::errno_code();
      log(LogLevel::error, "failed to sync " + file->path + " - " + detail::ec_text(ec));
    }
  }
  auto took = std::chrono::steady_clock::now() - started;
  files.clear();
  lock.lock();
  last_fsync_time_ = std::chrono::duration_cast<std::chrono::microseconds>(took);
  // The largest recent group, forgotten slowly: groups grow to the number of
  // writers and shrink when writers leave.
  last_sync_records_ = std::max(records, last_sync_records_ > 0 ? last_sync_records_ - 1 : 0);
  released_ = 0;
  for (const auto& b : group) {
    released_ += b->durable_members;
  }
  durable_arrivals_ = 0;
  for (const auto& b : group) {
    b->sync_ec = ec;
    b->file.reset();
  }
  syncing_ = false;
  if (control_waiting_ > 0) control_cv_.notify_all();
  if (!unsynced_.empty()) {
    unsynced_.front()->state.store(Batch::kSyncTurn, std::memory_order_release);
    unsynced_.front()->state.notify_one();
  }
  // Wake the group without mu_ held: the callers come straight back to put
  // again, and the next group gathers them sooner if they find mu_ free.
  lock.unlock();
  for (const auto& b : group) {
    b->state.store(Batch::kDone, std::memory_order_release);
    b->state.notify_all();
  }
  group.clear();
  lock.lock();
}

// Writes `data` (whole records) at the write position, rolling to new
// segments as the size limit requires. `lock` held on entry and exit; file
// I/O runs unlocked. Only the writer role changes write_file_num_, write_pos_
// and write_file_, so it reads them without the lock.
std::error_code DiskQueue::write_records(std::unique_lock<std::mutex>& lock, std::string_view data,
                                         std::int64_t records) {
  lock.unlock();
  std::error_code ec;
  while (!data.empty()) {
    std::int64_t pos = write_pos_;
    std::size_t take = 0;
    std::int64_t count = 0;
    if (pos + static_cast<std::int64_t>(data.size()) <= options_.max_bytes_per_file) {
      take = data.size();
      count = records;
    } else {
      // A record never crosses the limit, except the first of a segment.
      while (take < data.size()) {
        std::int64_t total = 4 + std::int64_t{detail::get_u32be(data.data() + take)};
        std::int64_t at = pos + static_cast<std::int64_t>(take);
        if (at > 0 && at + total > options_.max_bytes_per_file) break;
        take += static_cast<std::size_t>(total);
        ++count;
      }
    }
    if (take > 0) {
      ec = flush(lock, data.substr(0, take), count);
      if (ec) break;
      data.remove_prefix(take);
      records -= count;
    }
    if (!data.empty()) {
      ec = roll_segment(lock);
      if (ec) break;
    }
  }
  lock.lock();
  return ec;
}

// Writes `data` at write_pos_ and publishes it to the reader. Unlocked on
// entry and exit.
std::error_code DiskQueue::flush(std::unique_lock<std::mutex>& lock, std::string_view data,
                                 std::int64_t records) {
  std::int64_t start = write_pos_;
  if (!write_file_) {
    std::string path = segment_path(write_file_num_).string();
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::error_code ec = file_io::errno_code();
      log(LogLevel::error, "failed to open " + path + " - " + detail::ec_text(ec));
      return ec;
    }
    auto file = std::make_shared<File>(fd, std::move(path));
    struct stat st;
    file->filled_to = ::fstat(fd, &st) == 0 ? st.st_size : start;
    lock.lock();
    write_file_ = std::move(file);
    lock.unlock();
  }
  std::error_code ec;
  if (preallocating()) {  // records are at least 1 byte: data.size() > 4
    fill_ahead(*write_file_, start + static_cast<std::int64_t>(data.size()));
    // Over zeros, a write a crash cut short would read as a header and a
    // body that ends in zeros, a whole record. With the group's first
    // header written last, it stays zero until everything behind it is in
    // place, and reopening cuts the group (cut_unfinished_tail).
    // (The header is copied to an aligned buffer so that its source cannot
    // straddle two memory pages and be copied in two steps.)
    alignas(4) char header[4];
    std::memcpy(header, data.data(), 4);
    ec = file_io::pwrite_full(write_file_->fd, data.substr(4), start + 4);
    if (!ec) ec = file_io::pwrite_full(write_file_->fd, std::string_view(header, 4), start);
  } else {
    ec = file_io::pwrite_full(write_file_->fd, data, start);
  }
  if (ec) {
    log(LogLevel::error, "failed to write " + write_file_->path + " - " + detail::ec_text(ec));
    // Drop the partial record so a crash now cannot leave half a record
    // behind the checkpoint; the next put rewrites from write_pos_.
    if (::ftruncate(write_file_->fd, start) != 0) {
      log(LogLevel::warn, "failed to truncate " + write_file_->path);
    }
    lock.lock();
    write_file_.reset();
    lock.unlock();
    return ec;
  }
  lock.lock();
  write_pos_ = start + static_cast<std::int64_t>(data.size());
  depth_ += records;
  count_op_locked(records);
  fire_readable(lock);
  lock.unlock();
  return {};
}

// Unlocked on entry and exit.
std::error_code DiskQueue::roll_segment(std::unique_lock<std::mutex>& lock) {
  std::lock_guard meta_lock(meta_mu_);
  if (write_file_) cut_fill(*write_file_, write_pos_);
  if (write_file_ && ::fdatasync(write_file_->fd) != 0) {
    std::error_code ec = file_io::errno_code();
    log(LogLevel::error, "failed to sync " + write_file_->path + " - " + detail::ec_text(ec));
    lock.lock();
    write_file_.reset();
    lock.unlock();
    return ec;
  }
  lock.lock();
  write_file_.reset();
  ++write_file_num_;
  write_pos_ = 0;
  lock.unlock();
  return checkpoint_locked();
}

bool DiskQueue::preallocating() const noexcept {
  return options_.preallocate_bytes > 0 && options_.min_msg_size >= 1;
}

// Writer role held. A failure is not an error of the put: the write that
// follows meets the same condition (a full disk) and reports it. Zeros go
// only past write_pos_ (everything before it is acknowledged records), and
// filled_to counts what a fill cut short did write, so that no later fill
// starts below records written since.
void DiskQueue::fill_ahead(File& file, std::int64_t end) {
  std::int64_t from = std::max(file.filled_to, write_pos_);
  if (end <= from) return;
  std::int64_t to = std::max(end, std::min(end + options_.preallocate_bytes,
                                           options_.max_bytes_per_file));
  file.filled_to = from + file_io::write_zeros(file.fd, from, to - from).written;
}

// Writer role held (or the queue closing). Leaves the file ending at `end`,
// as NSQ writes it.
void DiskQueue::cut_fill(File& file, std::int64_t end) {
  if (file.filled_to <= end) return;
  if (::ftruncate(file.fd, end) != 0) {
    log(LogLevel::warn, "failed to cut the preallocated tail of " + file.path + " - " +
                            detail::ec_text(file_io::errno_code()));
    return;
  }
  file.filled_to = end;
}

}  // namespace nsq::diskqueue
