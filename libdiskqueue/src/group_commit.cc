#include "group_commit.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "file_io.h"
#include "record_format.h"

namespace nsq::diskqueue {
namespace {

// The syncer waits at most this long (and at most half an fsync) for the
// writers of the previous group to come back, so that one fsync carries them
// all rather than every other fsync carrying half of them.
constexpr std::chrono::microseconds kMaxGather{1000};
// A written batch's buffer is kept for the next batch unless it grew past this.
constexpr std::size_t kMaxSpare = 4 * 1024 * 1024;

}  // namespace

struct GroupCommit::Batch {
  // Progress, only ever increasing. Waiters block on it with atomic wait.
  static constexpr std::uint32_t kOpen = 0;      // taking records
  static constexpr std::uint32_t kTurn = 1;      // writer role free: a member should take it
  static constexpr std::uint32_t kWriting = 2;   // being written
  static constexpr std::uint32_t kWritten = 3;   // in the file; waiting for an fsync
  static constexpr std::uint32_t kSyncTurn = 4;  // syncer role free: a member should take it
  static constexpr std::uint32_t kDone = 5;      // written (and fsynced if durable), or failed

  std::atomic<std::uint32_t> state{kOpen};
  // Guarded by state.mu while the batch is open_, then owned by the writer.
  std::string data;
  std::int64_t records = 0;
  bool durable = false;
  int plain_members = 0;    // callers that return at kWritten
  int durable_members = 0;  // callers that return at kDone
  // Set before state moves past kWriting (write_ec) or reaches kDone
  // (sync_ec); read by members after an acquire load of state.
  std::error_code write_ec;
  std::error_code sync_ec;
  std::shared_ptr<OpenSegment> file;  // holds the batch's tail; guarded by state.mu
};

GroupCommit::GroupCommit(QueueState& state, SegmentWriter& writer, const QueueLog& log)
    : state_(state), writer_(writer), log_(log) {}

GroupCommit::~GroupCommit() = default;

std::error_code GroupCommit::try_write(std::span<const std::string_view> records,
                                       std::int64_t bytes) {
  std::unique_lock lock(state_.mu);
  if (state_.closed) return make_error_code(errc::exiting);
  if (writing_ || control_waiting_ > 0 || (open_ && open_->records > 0)) {
    return make_error_code(errc::busy);
  }
  if (!writer_.fits_without_waiting_locked(bytes)) return make_error_code(errc::busy);
  writing_ = true;
  std::string data;
  data.reserve(static_cast<std::size_t>(bytes));
  for (std::string_view r : records) {
    record_format::append_u32be(data, static_cast<std::uint32_t>(r.size()));
    data.append(r);
  }
  std::error_code ec = writer_.write_records(lock, data, static_cast<std::int64_t>(records.size()));
  release_writer_role(lock);
  return ec;
}

void GroupCommit::take_writer_role(std::unique_lock<std::mutex>& lock) {
  ++control_waiting_;
  control_cv_.wait(lock, [&] { return !writing_; });
  writing_ = true;
  if (open_ && open_->records > 0) write_open_batch(lock);
  while (!unsynced_.empty() || syncing_) {
    if (syncing_) {
      control_cv_.wait(lock);
    } else {
      sync_batches(lock);
    }
  }
  --control_waiting_;
}

std::error_code GroupCommit::append_and_wait(std::span<const std::string_view> records,
                                             bool durable) {
  std::unique_lock lock(state_.mu);
  if (state_.closed) return make_error_code(errc::exiting);
  if (!open_) {
    open_ = std::make_shared<Batch>();
    open_->data.swap(spare_);
    open_->data.clear();
  }
  std::shared_ptr<Batch> mine = open_;
  for (std::string_view r : records) {
    record_format::append_u32be(mine->data, static_cast<std::uint32_t>(r.size()));
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
void GroupCommit::drive(std::unique_lock<std::mutex>& lock, Batch& mine, std::uint32_t need) {
  for (;;) {
    std::uint32_t state = mine.state.load(std::memory_order_acquire);
    if (state >= need) {
      // A batch written while no one held the syncer role (its writer
      // pushed it and is leaving now, its own put done) has members asleep
      // since before it was written: tell them the role is theirs.
      if (!syncing_ && !unsynced_.empty()) hand_on_syncer_role_locked();
      return;
    }
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
void GroupCommit::write_batches(std::unique_lock<std::mutex>& lock, const Batch& mine,
                                std::uint32_t need) {
  writing_ = true;
  while (open_ && open_->records > 0 && control_waiting_ == 0) {
    write_open_batch(lock);
    if (mine.state.load(std::memory_order_relaxed) >= need) break;
    if (!syncing_ && !unsynced_.empty()) break;  // go and fsync what is written
  }
  release_writer_role(lock);
}

// Writes open_ with the writer role held; `lock` held on entry and exit.
void GroupCommit::write_open_batch(std::unique_lock<std::mutex>& lock) {
  std::shared_ptr<Batch> b = std::move(open_);
  open_.reset();
  b->state.store(Batch::kWriting, std::memory_order_relaxed);
  std::error_code ec = writer_.write_records(lock, b->data, b->records);
  b->write_ec = ec;
  if (b->data.capacity() <= kMaxSpare) spare_ = std::move(b->data);
  b->data = std::string();
  if (ec || !b->durable) {
    b->state.store(Batch::kDone, std::memory_order_release);
    b->state.notify_all();
    return;
  }
  b->file = state_.write_file;
  b->state.store(Batch::kWritten, std::memory_order_release);
  if (b->plain_members > 0) b->state.notify_all();
  unsynced_records_ += b->records;
  unsynced_.push_back(std::move(b));
  if (gathering_) gather_cv_.notify_one();
}

void GroupCommit::release_writer_role(std::unique_lock<std::mutex>&) {
  writing_ = false;
  if (gathering_) gather_cv_.notify_one();
  if (control_waiting_ > 0) {
    control_cv_.notify_all();
    return;
  }
  if (!open_) return;
  if (state_.closed) {
    // Appended after close() finished the pending puts.
    std::shared_ptr<Batch> b = std::move(open_);
    open_.reset();
    b->write_ec = make_error_code(errc::exiting);
    b->state.store(Batch::kDone, std::memory_order_release);
    b->state.notify_all();
    return;
  }
  if (open_->records > 0) {
    // notify_all, not notify_one: the first waiter to find the role free
    // takes it and the rest wait again, while a notify_one that reached no
    // sleeper (libstdc++ 12's atomic wait may be between its spin and its
    // futex, GCC bug 104928) would leave the role free and every member asleep.
    open_->state.store(Batch::kTurn, std::memory_order_release);
    open_->state.notify_all();
  }
}

// With state_.mu held, the syncer role free and batches waiting for an
// fsync: marks the oldest so that its members wake and one takes the role.
// The notify is unconditional: members that woke at an earlier mark and
// found the role taken sleep on the kSyncTurn value already.
void GroupCommit::hand_on_syncer_role_locked() {
  unsynced_.front()->state.store(Batch::kSyncTurn, std::memory_order_release);
  unsynced_.front()->state.notify_all();  // as for kTurn above
}

// Syncer role: one fdatasync for every batch written and not yet synced.
// `lock` held on entry and exit.
void GroupCommit::sync_batches(std::unique_lock<std::mutex>& lock) {
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
  std::vector<std::shared_ptr<OpenSegment>> files;
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
      log_(LogLevel::error, "failed to sync " + file->path + " - " + ec.message());
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
  if (!unsynced_.empty()) hand_on_syncer_role_locked();
  // Wake the group without state_.mu held: the callers come straight back to
  // put again, and the next group gathers them sooner if they find it free.
  lock.unlock();
  for (const auto& b : group) {
    b->state.store(Batch::kDone, std::memory_order_release);
    b->state.notify_all();
  }
  group.clear();
  lock.lock();
}

}  // namespace nsq::diskqueue
