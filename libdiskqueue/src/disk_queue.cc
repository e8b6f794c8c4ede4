#include "diskqueue/disk_queue.h"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_io.h"
#include "meta_file.h"

namespace nsq::diskqueue {
namespace {

constexpr std::size_t kReadChunk = 256 * 1024;
constexpr std::size_t kMaxGroupBytes = 8 * 1024 * 1024;
constexpr std::chrono::microseconds kMaxGather{1000};

std::uint32_t get_u32be(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         std::uint32_t{b[3]};
}

void append_u32be(std::string& out, std::uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  out.append(b, 4);
}

std::string ec_text(std::error_code ec) { return ec.message(); }

}  // namespace

struct DiskQueue::File {
  File(int f, std::string p) : fd(f), path(std::move(p)) {}
  ~File() { ::close(fd); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  const int fd;
  const std::string path;
};

struct DiskQueue::Op {
  explicit Op(OpKind k) : kind(k) {}
  OpKind kind;
  std::span<const std::string_view> records;  // put
  std::int64_t file_num = 0;                  // bad_segment: -1 = positions corrupt
  std::uint64_t generation = 0;               // bad_segment
  std::error_code result;
  bool done = false;
  std::condition_variable cv;
};

// ---------------------------------------------------------------------------
// Opening and recovery

Result<std::unique_ptr<DiskQueue>> DiskQueue::open(Options options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(options.data_path, ec)) {
    return tl::unexpected(make_error_code(errc::not_a_directory));
  }
  std::unique_ptr<DiskQueue> queue(new DiskQueue(std::move(options)));
  if (auto rec = queue->recover()) return tl::unexpected(rec);
  return queue;
}

DiskQueue::DiskQueue(Options options)
    : options_(std::move(options)),
      scheduler_(options_.scheduler ? options_.scheduler : std::make_shared<SyncScheduler>()),
      tmp_rand_(std::random_device{}()) {}

DiskQueue::~DiskQueue() {
  bool closed;
  {
    std::lock_guard lock(mu_);
    closed = closed_;
  }
  if (!closed) close();
  SyncScheduler::TaskId ids[2];
  {
    std::lock_guard lock(mu_);
    ids[0] = timer_id_;
    ids[1] = checkpoint_id_;
  }
  for (auto id : ids) {
    if (id != 0) scheduler_->cancel(id);
  }
  close_files();
}

std::filesystem::path DiskQueue::segment_path(std::int64_t file_num) const {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".diskqueue.%06lld.dat", static_cast<long long>(file_num));
  return options_.data_path / (options_.name + suffix);
}

std::filesystem::path DiskQueue::meta_path() const {
  return options_.data_path / (options_.name + ".diskqueue.meta.dat");
}

std::error_code DiskQueue::recover() {
  std::string text;
  std::error_code ec = file_io::read_small_file(meta_path(), text);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    log(LogLevel::error, "failed to read metadata " + meta_path().string() + " - " + ec_text(ec));
  } else if (!ec) {
    meta_file::Meta meta;
    if (!meta_file::parse(text, meta)) {
      log(LogLevel::error, "failed to parse metadata " + meta_path().string() +
                               " - keeping the positions read before the error, depth 0");
      meta.depth = 0;
    }
    depth_ = meta.depth;
    read_file_num_ = meta.read_file_num;
    read_pos_ = meta.read_pos;
    write_file_num_ = meta.write_file_num;
    write_pos_ = meta.write_pos;
  }

  // Records appended after the last checkpoint (an unclean stop) lie past
  // write_pos: never overwrite them; the reader still reads that segment to
  // its end. Counting them keeps depth exact.
  struct stat st;
  std::filesystem::path write_path = segment_path(write_file_num_);
  if (::stat(write_path.c_str(), &st) == 0 && st.st_size > write_pos_) {
    std::int64_t extra = 0;
    int fd = ::open(write_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      std::int64_t pos = write_pos_;
      char header[4];
      while (pos + 4 <= st.st_size && !file_io::pread_full(fd, header, 4, pos)) {
        std::int64_t len = get_u32be(header);
        if (len < options_.min_msg_size || len > options_.max_msg_size ||
            pos + 4 + len > st.st_size) {
          break;
        }
        pos += 4 + len;
        ++extra;
      }
      ::close(fd);
    }
    log(LogLevel::warn, "metadata writePos " + std::to_string(write_pos_) + " < file size of " +
                            std::to_string(st.st_size) + " in " + write_path.string() +
                            ", skipping to new file (" + std::to_string(extra) +
                            " records past the checkpoint)");
    depth_ += extra;
    ++write_file_num_;
    write_pos_ = 0;
    unsynced_ops_ = 1;
  }

  bool beyond = read_file_num_ > write_file_num_ ||
                (read_file_num_ == write_file_num_ && read_pos_ > write_pos_);
  if (beyond) {
    log(LogLevel::error, "read position " + std::to_string(read_file_num_) + "," +
                             std::to_string(read_pos_) + " is past write position " +
                             std::to_string(write_file_num_) + "," + std::to_string(write_pos_) +
                             " - corrupt metadata, skipping to a new file");
    remove_segments(std::min(read_file_num_, write_file_num_),
                    std::max(read_file_num_, write_file_num_));
    write_file_num_ = std::max(read_file_num_, write_file_num_) + 1;
    write_pos_ = 0;
    read_file_num_ = write_file_num_;
    read_pos_ = 0;
    depth_ = 0;
    unsynced_ops_ = 1;
  } else if (read_file_num_ == write_file_num_ && read_pos_ == write_pos_ && depth_ != 0) {
    log(LogLevel::error, "depth " + std::to_string(depth_) +
                             " in metadata but the queue is empty - resetting to 0");
    depth_ = 0;
  }
  if (unsynced_ops_ > 0) {
    std::unique_lock lock(mu_);
    arm_timer_locked();
  }
  return {};
}

// ---------------------------------------------------------------------------
// Writer side: group commit

std::error_code DiskQueue::put(std::string_view record) {
  return put_batch(std::span<const std::string_view>(&record, 1));
}

std::error_code DiskQueue::put_batch(std::span<const std::string_view> records) {
  for (std::string_view r : records) {
    auto size = static_cast<std::int64_t>(r.size());
    if (size < options_.min_msg_size || size > options_.max_msg_size) {
      return make_error_code(errc::invalid_size);
    }
  }
  if (records.empty()) return {};
  Op op(OpKind::put);
  op.records = records;
  return submit(op);
}

std::error_code DiskQueue::sync() {
  {
    std::lock_guard lock(mu_);
    if (closed_) return make_error_code(errc::exiting);
  }
  return checkpoint();
}

std::error_code DiskQueue::empty() {
  Op op(OpKind::empty);
  return submit(op);
}

std::error_code DiskQueue::close() {
  Op op(OpKind::close);
  std::error_code ec = submit(op);
  SyncScheduler::TaskId ids[2];
  {
    std::lock_guard lock(mu_);
    ids[0] = timer_id_;
    ids[1] = checkpoint_id_;
  }
  for (auto id : ids) {
    if (id != 0) scheduler_->cancel(id);
  }
  return ec;
}

std::error_code DiskQueue::remove() {
  Op op(OpKind::remove);
  return submit(op);
}

std::error_code DiskQueue::submit(Op& op) {
  std::unique_lock lock(mu_);
  if (closed_) return make_error_code(errc::exiting);
  ops_.push_back(&op);
  op.cv.wait(lock, [&] { return op.done || ops_.front() == &op; });
  if (!op.done) lead(lock, op);
  return op.result;
}

void DiskQueue::lead(std::unique_lock<std::mutex>& lock, Op& leader) {
  // The group: the leader, plus the puts queued right behind a leading put.
  group_.assign(1, &leader);
  if (leader.kind == OpKind::put) {
    std::size_t bytes = 0;
    for (std::string_view r : leader.records) bytes += r.size() + 4;
    for (std::size_t i = 1; i < ops_.size() && ops_[i]->kind == OpKind::put; ++i) {
      std::size_t op_bytes = 0;
      for (std::string_view r : ops_[i]->records) op_bytes += r.size() + 4;
      if (bytes + op_bytes > kMaxGroupBytes) break;
      bytes += op_bytes;
      group_.push_back(ops_[i]);
    }
  }

  std::uint64_t durable_target = 0;  // set when this group waits for an fsync
  if (closed_) {
    leader.result = make_error_code(errc::exiting);
  } else {
    switch (leader.kind) {
      case OpKind::put:
        if (!write_group(lock) && options_.sync_every <= 1) durable_target = written_seq_;
        break;
      case OpKind::empty:
        do_empty(lock);
        break;
      case OpKind::close: {
        lock.unlock();
        {
          std::lock_guard meta_lock(meta_mu_);
          leader.result = checkpoint_locked();
          lock.lock();
          closed_ = true;
          on_readable_ = nullptr;
          readable_cv_.notify_all();
          lock.unlock();
        }
        close_files();
        lock.lock();
        break;
      }
      case OpKind::remove:
        closed_ = true;
        on_readable_ = nullptr;
        readable_cv_.notify_all();
        lock.unlock();
        close_files();
        lock.lock();
        break;
      case OpKind::bad_segment:
        do_bad_segment(lock, leader.file_num, leader.generation);
        break;
    }
  }

  for (std::size_t i = 0; i < group_.size(); ++i) ops_.pop_front();
  if (durable_target == 0) {
    finish_group(group_, leader);
    if (!ops_.empty()) ops_.front()->cv.notify_one();
    return;
  }
  // Hand the leader role on before waiting for the fsync: the next group
  // writes while this one waits, and one fsync then covers them all.
  std::vector<Op*> group(group_.begin(), group_.end());
  if (!ops_.empty()) ops_.front()->cv.notify_one();
  if (std::error_code ec = await_fsync(lock, durable_target, group.size())) {
    for (Op* op : group) op->result = ec;
  }
  finish_group(group, leader);
}

void DiskQueue::finish_group(const std::vector<Op*>& group, Op& leader) {
  for (Op* op : group) {
    op->done = true;
    if (op != &leader) op->cv.notify_one();
  }
}

// Returns once every record up to `target` (a written_seq_ value) is fsynced.
// One waiter at a time runs the fsync for all; before it starts, it gives
// the writers of the previous batch a moment to come back, because writers
// that wait for durability put again as soon as they are released and would
// otherwise always miss the next fsync by a hair (halving the batch).
std::error_code DiskQueue::await_fsync(std::unique_lock<std::mutex>& lock, std::uint64_t target,
                                       std::size_t waiters) {
  fsync_waiters_ += waiters;
  if (gathering_) sync_cv_.notify_all();
  std::error_code result;
  while (synced_seq_ < target) {
    if (failed_seq_ >= target) {
      result = failed_ec_;
      break;
    }
    if (fsync_running_) {
      sync_cv_.wait(lock);
      continue;
    }
    fsync_running_ = true;
    auto gather_until = std::chrono::steady_clock::now() + std::min(last_fsync_time_ / 2, kMaxGather);
    gathering_ = true;
    sync_cv_.wait_until(lock, gather_until, [&] { return fsync_waiters_ >= last_fsync_batch_; });
    gathering_ = false;
    std::uint64_t upto = written_seq_;
    std::shared_ptr<File> file = write_file_;
    std::size_t batch = fsync_waiters_;
    lock.unlock();
    auto started = std::chrono::steady_clock::now();
    std::error_code ec;
    if (file && ::fdatasync(file->fd) != 0) {
      ec = file_io::errno_code();
      log(LogLevel::error, "failed to sync " + file->path + " - " + ec_text(ec));
    }
    auto took = std::chrono::steady_clock::now() - started;
    lock.lock();
    last_fsync_time_ = std::chrono::duration_cast<std::chrono::microseconds>(took);
    // The batch to wait for next time: the largest recent one, forgotten
    // slowly, so batches grow to the number of writers and shrink when
    // writers leave.
    last_fsync_batch_ = std::max(batch, last_fsync_batch_ > 0 ? last_fsync_batch_ - 1 : 0);
    if (ec) {
      failed_seq_ = upto;
      failed_ec_ = ec;
    } else {
      synced_seq_ = std::max(synced_seq_, upto);
    }
    fsync_running_ = false;
    sync_cv_.notify_all();
  }
  fsync_waiters_ -= waiters;
  return result;
}

// Runs with `lock` held on entry and exit; file I/O happens unlocked. Only the
// leader changes write_file_num_/write_pos_/write_file_, so it may read them
// without the lock.
std::error_code DiskQueue::write_group(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  staging_.clear();
  std::int64_t staged_records = 0;
  std::size_t first_unflushed_op = 0;  // ops before it are fully written
  std::error_code ec;

  auto fail_from = [&](std::size_t op_index, std::error_code err) {
    for (std::size_t i = op_index; i < group_.size(); ++i) group_[i]->result = err;
  };

  for (std::size_t i = 0; i < group_.size() && !ec; ++i) {
    for (std::string_view record : group_[i]->records) {
      std::int64_t total = 4 + static_cast<std::int64_t>(record.size());
      std::int64_t pos = write_pos_ + static_cast<std::int64_t>(staging_.size());
      if (pos > 0 && pos + total > options_.max_bytes_per_file) {
        if (!staging_.empty()) {
          ec = flush_staging(lock, staged_records);
          if (ec) {
            fail_from(first_unflushed_op, ec);
            break;
          }
          staged_records = 0;
          first_unflushed_op = i;
        }
        ec = roll_segment(lock);
        if (ec) {
          fail_from(first_unflushed_op, ec);
          break;
        }
      }
      append_u32be(staging_, static_cast<std::uint32_t>(record.size()));
      staging_.append(record);
      ++staged_records;
    }
  }
  if (!ec && !staging_.empty()) {
    ec = flush_staging(lock, staged_records);
    if (ec) fail_from(first_unflushed_op, ec);
  }
  lock.lock();
  return ec;
}

// Writes staging_ at write_pos_ and publishes it to the reader.
std::error_code DiskQueue::flush_staging(std::unique_lock<std::mutex>& lock,
                                         std::int64_t records) {
  std::int64_t start = write_pos_;
  if (!write_file_) {
    std::string path = segment_path(write_file_num_).string();
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::error_code ec = file_io::errno_code();
      log(LogLevel::error, "failed to open " + path + " - " + ec_text(ec));
      staging_.clear();
      return ec;
    }
    auto file = std::make_shared<File>(fd, std::move(path));
    lock.lock();
    write_file_ = std::move(file);
    lock.unlock();
  }
  std::error_code ec = file_io::pwrite_full(write_file_->fd, staging_, start);
  if (ec) {
    log(LogLevel::error, "failed to write " + write_file_->path + " - " + ec_text(ec));
    // Drop the partial record so a crash now cannot leave half a record
    // behind the checkpoint; the next put rewrites from write_pos_.
    if (::ftruncate(write_file_->fd, start) != 0) {
      log(LogLevel::warn, "failed to truncate " + write_file_->path);
    }
    lock.lock();
    write_file_.reset();
    lock.unlock();
    staging_.clear();
    return ec;
  }
  lock.lock();
  write_pos_ = start + static_cast<std::int64_t>(staging_.size());
  depth_ += records;
  written_seq_ += static_cast<std::uint64_t>(records);
  count_op_locked(records);
  fire_readable(lock);
  lock.unlock();
  staging_.clear();
  return {};
}

std::error_code DiskQueue::roll_segment(std::unique_lock<std::mutex>& lock) {
  std::lock_guard meta_lock(meta_mu_);
  if (write_file_ && ::fdatasync(write_file_->fd) != 0) {
    std::error_code ec = file_io::errno_code();
    log(LogLevel::error, "failed to sync " + write_file_->path + " - " + ec_text(ec));
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

std::error_code DiskQueue::checkpoint() {
  std::lock_guard meta_lock(meta_mu_);
  return checkpoint_locked();
}

std::error_code DiskQueue::checkpoint_locked() {
  meta_file::Meta meta;
  std::shared_ptr<File> file;
  std::int64_t counted;
  {
    std::lock_guard lock(mu_);
    if (closed_) return make_error_code(errc::exiting);
    meta = {depth_, read_file_num_, read_pos_, write_file_num_, write_pos_};
    file = write_file_;
    counted = unsynced_ops_;
  }
  if (file && ::fdatasync(file->fd) != 0) {
    std::error_code ec = file_io::errno_code();
    log(LogLevel::error, "failed to sync " + file->path + " - " + ec_text(ec));
    return ec;
  }
  std::error_code ec =
      file_io::write_file_atomic(meta_path(), meta_file::format(meta), tmp_rand_());
  if (ec) {
    log(LogLevel::error, "failed to write metadata " + meta_path().string() + " - " + ec_text(ec));
    return ec;
  }
  std::lock_guard lock(mu_);
  unsynced_ops_ = std::max<std::int64_t>(0, unsynced_ops_ - counted);
  return {};
}

// Lock order: leader role, then read_mu_, then meta_mu_, then mu_.
void DiskQueue::do_empty(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  std::lock_guard read_lock(read_mu_);
  std::lock_guard meta_lock(meta_mu_);
  close_read_file();
  lock.lock();
  write_file_.reset();
  std::int64_t first = read_file_num_, last = write_file_num_;
  lock.unlock();
  remove_segments(first, last);
  ::unlink(meta_path().c_str());
  lock.lock();
  ++write_file_num_;
  write_pos_ = 0;
  read_file_num_ = write_file_num_;
  read_pos_ = 0;
  depth_ = 0;
  ++generation_;
  count_op_locked(1);  // the checkpoint is rewritten by the next sync
}

void DiskQueue::do_bad_segment(std::unique_lock<std::mutex>& lock, std::int64_t file_num,
                               std::uint64_t generation) {
  lock.unlock();
  std::lock_guard read_lock(read_mu_);
  std::lock_guard meta_lock(meta_mu_);
  lock.lock();
  if (generation_ != generation || (file_num >= 0 && read_file_num_ != file_num)) return;
  ++generation_;
  lock.unlock();
  close_read_file();
  lock.lock();

  if (file_num < 0) {
    // Read position past the write position: the checkpoint lies. Start over.
    std::int64_t first = std::min(read_file_num_, write_file_num_);
    std::int64_t last = std::max(read_file_num_, write_file_num_);
    write_file_.reset();
    lock.unlock();
    log(LogLevel::error, "read position past write position - corrupt metadata, skipping to a "
                         "new file");
    remove_segments(first, last);
    lock.lock();
    write_file_num_ = last + 1;
    write_pos_ = 0;
    read_file_num_ = write_file_num_;
    read_pos_ = 0;
    depth_ = 0;
  } else {
    if (file_num == write_file_num_) {
      // The reader abandons this file, so the writer must too.
      write_file_.reset();
      ++write_file_num_;
      write_pos_ = 0;
    }
    std::filesystem::path path = segment_path(file_num);
    std::filesystem::path bad = path;
    bad += ".bad";
    lock.unlock();
    log(LogLevel::error, "jump to next file and saving bad file as " + bad.string());
    if (::rename(path.c_str(), bad.c_str()) != 0) {
      log(LogLevel::error, "failed to rename bad file " + path.string() + " to " + bad.string() +
                               " - " + ec_text(file_io::errno_code()));
    }
    lock.lock();
    read_file_num_ = file_num + 1;
    read_pos_ = 0;
  }
  if (read_file_num_ == write_file_num_ && read_pos_ == write_pos_ && depth_ != 0) {
    log(LogLevel::error, "read reached write position with depth " + std::to_string(depth_) +
                             " (records lost with the bad file) - resetting to 0");
    depth_ = 0;
  }
  lock.unlock();
  checkpoint_locked();
  lock.lock();
}

// Deletes this queue's segments numbered first..last that exist. Reads the
// directory rather than trying every number: a corrupt checkpoint can name
// file numbers millions apart.
void DiskQueue::remove_segments(std::int64_t first, std::int64_t last) const {
  std::string prefix = options_.name + ".diskqueue.";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(options_.data_path, ec)) {
    std::string file = entry.path().filename().string();
    if (!file.starts_with(prefix) || !file.ends_with(".dat")) continue;
    std::string_view digits(file);
    digits = digits.substr(prefix.size(), digits.size() - prefix.size() - 4);
    std::int64_t n = 0;
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (err != std::errc() || end != digits.data() + digits.size() || digits.empty()) continue;
    if (n >= first && n <= last) ::unlink(entry.path().c_str());
  }
}

void DiskQueue::close_files() {
  {
    std::lock_guard lock(mu_);
    write_file_.reset();
  }
  std::lock_guard read_lock(read_mu_);
  close_read_file();
}

void DiskQueue::close_read_file() {
  if (read_fd_ >= 0) ::close(read_fd_);
  read_fd_ = -1;
  read_fd_num_ = -1;
  reset_read_buffer();
}

// ---------------------------------------------------------------------------
// Reader side

std::optional<std::string> DiskQueue::try_read() {
  auto records = read_batch(1, 1);
  if (records.empty()) return std::nullopt;
  return std::move(records.front());
}

std::vector<std::string> DiskQueue::read_batch(std::size_t max_records, std::size_t max_bytes) {
  std::vector<std::string> out;
  std::size_t bytes = 0;
  while (out.size() < max_records && (out.empty() || bytes < max_bytes)) {
    std::string record;
    std::int64_t bad_file = 0;
    std::uint64_t bad_generation = 0;
    ReadStep step;
    {
      std::lock_guard read_lock(read_mu_);
      step = read_one(record, bad_file, bad_generation);
    }
    if (step == ReadStep::record) {
      bytes += record.size();
      out.push_back(std::move(record));
    } else if (step == ReadStep::bad_segment) {
      // Writer-side work: runs without read_mu_, which the leader takes.
      Op op(OpKind::bad_segment);
      op.file_num = bad_file;
      op.generation = bad_generation;
      if (submit(op)) break;
    } else if (step == ReadStep::empty) {
      break;
    }
  }
  return out;
}

DiskQueue::ReadStep DiskQueue::read_one(std::string& out, std::int64_t& bad_file,
                                        std::uint64_t& bad_generation) {
  std::int64_t rnum, rpos, wnum, wpos;
  std::uint64_t gen;
  {
    std::lock_guard lock(mu_);
    if (closed_) return ReadStep::empty;
    rnum = read_file_num_;
    rpos = read_pos_;
    wnum = write_file_num_;
    wpos = write_pos_;
    gen = generation_;
  }
  if (rnum > wnum || (rnum == wnum && rpos > wpos)) {
    bad_file = -1;
    bad_generation = gen;
    return ReadStep::bad_segment;
  }
  if (rnum == wnum && rpos == wpos) return ReadStep::empty;

  auto bad = [&] {
    bad_file = rnum;
    bad_generation = gen;
    return ReadStep::bad_segment;
  };

  if (buf_generation_ != gen || read_fd_num_ != rnum) {
    close_read_file();
    buf_generation_ = gen;
    read_fd_ = ::open(segment_path(rnum).c_str(), O_RDONLY | O_CLOEXEC);
    if (read_fd_ < 0) {
      log(LogLevel::error, "failed to open " + segment_path(rnum).string() + " for reading - " +
                               ec_text(file_io::errno_code()));
      return bad();
    }
    read_fd_num_ = rnum;
    read_fd_end_ = -1;
  }

  std::int64_t end = wpos;
  if (rnum < wnum) {
    // A finished segment ends where its file ends (which may be past the
    // checkpointed position after an unclean stop).
    if (read_fd_end_ < 0) {
      struct stat st;
      if (::fstat(read_fd_, &st) != 0) return bad();
      read_fd_end_ = st.st_size;
    }
    end = read_fd_end_;
    if (rpos >= end) {
      std::lock_guard lock(mu_);
      if (generation_ != gen || read_file_num_ != rnum) return ReadStep::retry;
      close_read_file();
      ::unlink(segment_path(rnum).c_str());
      read_file_num_ = rnum + 1;
      read_pos_ = 0;
      request_checkpoint_locked();  // never leave the checkpoint naming a deleted file
      return ReadStep::retry;
    }
  }

  if (rpos + 4 > end || !fill_buffer(rpos, 4, end)) {
    log(LogLevel::error, "truncated record header at " + std::to_string(rpos) + " in " +
                             segment_path(rnum).string());
    return bad();
  }
  std::int64_t len = get_u32be(buf_.data() + (rpos - buf_start_));
  if (len < options_.min_msg_size || len > options_.max_msg_size) {
    log(LogLevel::error, "invalid record size " + std::to_string(len) + " at " +
                             std::to_string(rpos) + " in " + segment_path(rnum).string());
    return bad();
  }
  if (rpos + 4 + len > end || !fill_buffer(rpos + 4, static_cast<std::size_t>(len), end)) {
    log(LogLevel::error, "truncated record at " + std::to_string(rpos) + " in " +
                             segment_path(rnum).string());
    return bad();
  }
  out.assign(buf_.data() + (rpos + 4 - buf_start_), static_cast<std::size_t>(len));

  std::lock_guard lock(mu_);
  if (generation_ != gen || read_file_num_ != rnum || read_pos_ != rpos) return ReadStep::retry;
  read_pos_ = rpos + 4 + len;
  --depth_;
  count_op_locked(1);
  if (read_file_num_ == write_file_num_ && read_pos_ == write_pos_ && depth_ != 0) {
    log(LogLevel::error, "read reached write position with depth " + std::to_string(depth_) +
                             " - resetting to 0");
    depth_ = 0;
  }
  return ReadStep::record;
}

// Makes buf_ hold [pos, pos + need) of the open segment, reading no further
// than `end` (bytes past it may still change).
bool DiskQueue::fill_buffer(std::int64_t pos, std::size_t need, std::int64_t end) {
  if (buf_num_ == read_fd_num_ && pos >= buf_start_ &&
      pos + static_cast<std::int64_t>(need) <= buf_start_ + static_cast<std::int64_t>(buf_len_)) {
    return true;
  }
  std::size_t want = std::max(need, kReadChunk);
  want = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(want), end - pos));
  if (want < need) return false;
  if (buf_.size() < want) buf_.resize(want);
  if (file_io::pread_full(read_fd_, buf_.data(), want, pos)) {
    reset_read_buffer();
    return false;
  }
  buf_num_ = read_fd_num_;
  buf_start_ = pos;
  buf_len_ = want;
  return true;
}

void DiskQueue::reset_read_buffer() {
  buf_num_ = -1;
  buf_start_ = 0;
  buf_len_ = 0;
}

bool DiskQueue::wait_readable(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto has_data = [&] { return closed_ || has_data_locked(); };
  ++read_waiters_;
  bool ready = readable_cv_.wait_for(lock, timeout, has_data);
  --read_waiters_;
  return ready && !closed_;
}

void DiskQueue::notify_when_readable(std::function<void()> callback) {
  std::unique_lock lock(mu_);
  if (closed_) return;
  if (has_data_locked()) {
    lock.unlock();
    callback();
    return;
  }
  on_readable_ = std::move(callback);
}

// Wakes the reader outside the lock, so it does not wake only to block on mu_.
void DiskQueue::fire_readable(std::unique_lock<std::mutex>& lock) {
  bool notify = read_waiters_ > 0;
  auto callback = std::move(on_readable_);
  on_readable_ = nullptr;
  if (!notify && !callback) return;
  lock.unlock();
  if (notify) readable_cv_.notify_all();
  if (callback) callback();
  lock.lock();
}

// ---------------------------------------------------------------------------
// Bookkeeping

std::int64_t DiskQueue::depth() const {
  std::lock_guard lock(mu_);
  return depth_;
}

DiskQueue::Positions DiskQueue::positions() const {
  std::lock_guard lock(mu_);
  return {read_file_num_, read_pos_, write_file_num_, write_pos_, depth_};
}

void DiskQueue::count_op_locked(std::int64_t n) {
  unsynced_ops_ += n;
  if (!timer_armed_) arm_timer_locked();
  if (options_.sync_every > 1 && unsynced_ops_ >= options_.sync_every) {
    request_checkpoint_locked();
  }
}

void DiskQueue::arm_timer_locked() {
  if (closed_ || timer_armed_ || options_.sync_timeout.count() <= 0) return;
  timer_armed_ = true;
  timer_id_ = scheduler_->schedule(SyncScheduler::Clock::now() + options_.sync_timeout, [this] {
    {
      std::lock_guard lock(mu_);
      timer_armed_ = false;
      if (closed_ || unsynced_ops_ == 0) return;
    }
    checkpoint();
  });
}

void DiskQueue::request_checkpoint_locked() {
  if (closed_ || checkpoint_requested_) return;
  checkpoint_requested_ = true;
  checkpoint_id_ = scheduler_->schedule(SyncScheduler::Clock::now(), [this] {
    {
      std::lock_guard lock(mu_);
      checkpoint_requested_ = false;
      if (closed_) return;
    }
    checkpoint();
  });
}

bool DiskQueue::has_data_locked() const {
  return read_file_num_ != write_file_num_ || read_pos_ != write_pos_;
}

void DiskQueue::log(LogLevel level, const std::string& text) const {
  if (options_.logger) options_.logger(level, "DISKQUEUE(" + options_.name + "): " + text);
}

}  // namespace nsq::diskqueue
