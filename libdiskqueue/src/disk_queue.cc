// Opening and recovery, writer-side control operations (empty, close,
// remove, bad segment), checkpoints and bookkeeping. Puts are in
// disk_queue_write.cc, reading in disk_queue_read.cc.
#include "diskqueue/disk_queue.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk_queue_internal.h"
#include "file_io.h"
#include "meta_file.h"

namespace nsq::diskqueue {
namespace {

// Recovery looks this many segments past the checkpoint's write segment.
constexpr std::int64_t kMaxSegmentsPastCheckpoint = 1000;

bool segment_exists(const std::filesystem::path& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The numbers of queue `name`'s segment files in `dir`, ascending. Reads the
// directory rather than trying every number: a corrupt checkpoint can name
// file numbers millions apart.
std::vector<std::int64_t> segment_numbers(const std::filesystem::path& dir,
                                          const std::string& name) {
  std::string prefix = name + ".diskqueue.";
  std::vector<std::int64_t> nums;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string file = entry.path().filename().string();
    if (!file.starts_with(prefix) || !file.ends_with(".dat")) continue;
    std::string_view digits(file);
    digits = digits.substr(prefix.size(), digits.size() - prefix.size() - 4);
    std::int64_t n = 0;
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (err != std::errc() || end != digits.data() + digits.size() || digits.empty()) continue;
    nums.push_back(n);
  }
  std::sort(nums.begin(), nums.end());
  return nums;
}

}  // namespace

using detail::ec_text;

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

  // The checkpoint names a write position past the end of the write
  // segment's data (a power cut lost a tail the meta file had counted, or
  // someone cut the file): every whole record before the damage is still
  // delivered, and writing resumes after the last of them.
  struct stat write_st;
  if (::stat(segment_path(write_file_num_).c_str(), &write_st) == 0 &&
      write_st.st_size < write_pos_) {
    int fd = ::open(segment_path(write_file_num_).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      std::int64_t whole = walk_records(fd, 0, write_st.st_size).end;
      bool same_file = read_file_num_ == write_file_num_;
      if (same_file) read_pos_ = std::min(read_pos_, whole);
      log(LogLevel::error, "metadata writePos " + std::to_string(write_pos_) +
                               " > file size " + std::to_string(write_st.st_size) + " of " +
                               segment_path(write_file_num_).string() +
                               " - data lost after its last whole record at " +
                               std::to_string(whole) + ", reading up to it");
      write_pos_ = whole;
      if (same_file) depth_ = walk_records(fd, read_pos_, whole).count;
      ::close(fd);
    }
  }

  // A read position past the write position: the checkpoint lies about one
  // of them, and it cannot tell which. Like a checkpoint that does not
  // parse, read every segment there is from its start (at least once: some
  // records may come again) rather than drop them.
  if (read_file_num_ > write_file_num_ ||
      (read_file_num_ == write_file_num_ && read_pos_ > write_pos_)) {
    std::vector<std::int64_t> nums = segment_numbers(options_.data_path, options_.name);
    std::int64_t first = nums.empty() ? std::max(read_file_num_, write_file_num_) + 1 : nums.front();
    log(LogLevel::error, "read position " + std::to_string(read_file_num_) + "," +
                             std::to_string(read_pos_) + " is past write position " +
                             std::to_string(write_file_num_) + "," + std::to_string(write_pos_) +
                             " in " + meta_path().string() +
                             " - corrupt metadata, reading every segment from " +
                             segment_path(first).string());
    read_file_num_ = write_file_num_ = first;
    read_pos_ = write_pos_ = 0;
    depth_ = 0;
    unsynced_ops_ = 1;
  }

  // Records appended after the last checkpoint (an unclean stop, or puts
  // made durable by their own fsync while the meta file lagged) lie past
  // write_pos, or in segments after the write segment when the checkpoint of
  // a roll failed: never overwrite them; the reader reads each old segment to
  // its end. Counting them keeps depth exact.
  std::int64_t last = write_file_num_;
  while (last - write_file_num_ < kMaxSegmentsPastCheckpoint && segment_exists(segment_path(last + 1))) {
    ++last;
  }
  for (std::int64_t num = write_file_num_; num <= last; ++num) {
    cut_unfinished_tail(num, num == write_file_num_ ? write_pos_ : 0);
  }
  struct stat st;
  std::filesystem::path write_path = segment_path(write_file_num_);
  bool tail = ::stat(write_path.c_str(), &st) == 0 && st.st_size > write_pos_;
  if (tail || last > write_file_num_) {
    std::int64_t extra = 0;
    for (std::int64_t num = write_file_num_; num <= last; ++num) {
      int fd = ::open(segment_path(num).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat seg;
      if (::fstat(fd, &seg) == 0) {
        extra += walk_records(fd, num == write_file_num_ ? write_pos_ : 0, seg.st_size).count;
      }
      ::close(fd);
    }
    log(LogLevel::warn, "metadata writePos " + std::to_string(write_pos_) + " < file size of " +
                            std::to_string(tail ? st.st_size : write_pos_) + " in " +
                            write_path.string() + ", skipping to new file (" +
                            std::to_string(extra) + " records past the checkpoint)");
    depth_ += extra;
    write_file_num_ = last + 1;
    write_pos_ = 0;
    unsynced_ops_ = 1;
  }

  if (read_file_num_ == write_file_num_ && read_pos_ == write_pos_ && depth_ != 0) {
    log(LogLevel::error, "depth " + std::to_string(depth_) +
                             " in metadata but the queue is empty - resetting to 0");
    depth_ = 0;
  }
  commit_file_num_ = read_file_num_;
  commit_pos_ = read_pos_;
  delete_from_ = read_file_num_;
  if (options_.manual_read_commit) delete_orphans_behind(read_file_num_);
  if (unsynced_ops_ > 0) {
    std::unique_lock lock(mu_);
    arm_timer_locked();
  }
  return {};
}

// With manual commit, segments are deleted after the checkpoint that moves
// the commit past them; a crash in between leaves them behind the read
// position, right below it.
void DiskQueue::delete_orphans_behind(std::int64_t file_num) const {
  for (std::int64_t num = file_num - 1; num >= 0; --num) {
    if (::unlink(segment_path(num).c_str()) != 0) break;
  }
}

// ---------------------------------------------------------------------------
// Control operations

std::error_code DiskQueue::sync() {
  {
    std::lock_guard lock(mu_);
    if (closed_) return make_error_code(errc::exiting);
  }
  return checkpoint();
}

std::error_code DiskQueue::empty() { return control(OpKind::empty); }

std::error_code DiskQueue::close() {
  finish_async_puts();
  std::error_code ec = control(OpKind::close);
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
  finish_async_puts();
  return control(OpKind::remove);
}

// Takes the writer role (ahead of new puts), finishes the puts appended so
// far, fsync included for those that asked for it, then runs `kind` alone.
std::error_code DiskQueue::control(OpKind kind, std::int64_t file_num, std::uint64_t generation) {
  std::unique_lock lock(mu_);
  if (closed_) return make_error_code(errc::exiting);
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

  std::error_code result;
  if (closed_) {
    result = make_error_code(errc::exiting);
  } else {
    switch (kind) {
      case OpKind::empty:
        do_empty(lock);
        break;
      case OpKind::close: {
        lock.unlock();
        {
          std::lock_guard meta_lock(meta_mu_);
          result = checkpoint_locked();
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
        do_bad_segment(lock, file_num, generation);
        break;
    }
  }
  release_writer(lock);
  return result;
}

// Lock order: writer role, then read_mu_, then meta_mu_, then mu_.
void DiskQueue::do_empty(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  std::lock_guard read_lock(read_mu_);
  std::lock_guard meta_lock(meta_mu_);
  close_read_file();
  lock.lock();
  write_file_.reset();
  std::int64_t first = std::min(commit_file_num_, read_file_num_), last = write_file_num_;
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
  reset_commit_locked();
  delete_from_ = read_file_num_;
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
    std::int64_t first = std::min({read_file_num_, write_file_num_, commit_file_num_});
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
    reset_commit_locked();
    delete_from_ = read_file_num_;
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
    segment_finished_locked(file_num);
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

// Deletes this queue's segments numbered first..last that exist.
void DiskQueue::remove_segments(std::int64_t first, std::int64_t last) const {
  for (std::int64_t n : segment_numbers(options_.data_path, options_.name)) {
    if (n >= first && n <= last) ::unlink(segment_path(n).c_str());
  }
}

// Whole records with valid sizes from `from` (a record boundary) up to the
// first invalid or truncated one, in a segment of `size` bytes.
DiskQueue::RecordWalk DiskQueue::walk_records(int fd, std::int64_t from, std::int64_t size) const {
  RecordWalk walk{from, 0};
  char header[4];
  while (walk.end + 4 <= size && !file_io::pread_full(fd, header, 4, walk.end)) {
    std::int64_t len = detail::get_u32be(header);
    if (len < options_.min_msg_size || len > options_.max_msg_size || walk.end + 4 + len > size) {
      break;
    }
    walk.end += 4 + len;
    ++walk.count;
  }
  return walk;
}

// Past the checkpoint, what follows the last whole record of a segment a
// crash left is one of two things, and neither was ever acknowledged (an
// acknowledged record precedes everything unfinished; see flush):
// - zeros a preallocating queue wrote ahead;
// - a write the crash cut short (SIGKILL can stop a pwrite between pages): a
//   record running past the file end, or, over preallocated zeros, a zero
//   first header (flush writes it last) with the rest of its group behind.
// Both are cut, so that the segment reads, and is, as NSQ would have written
// it. Anything else (a nonzero invalid length) is corruption, left for the
// reader to report.
void DiskQueue::cut_unfinished_tail(std::int64_t file_num, std::int64_t from) {
  if (options_.min_msg_size < 1) return;  // a zero header could be a record
  std::string path = segment_path(file_num).string();
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > from) {
    std::int64_t pos = walk_records(fd, from, st.st_size).end;
    std::int64_t cut = st.st_size - pos;
    bool zeros = cut > 0 && file_io::all_zero(fd, pos, st.st_size);
    bool unfinished = false;
    char header[4];
    if (cut > 0 && !zeros) {
      if (cut < 4) {
        unfinished = true;  // a header cut short
      } else if (!file_io::pread_full(fd, header, 4, pos)) {
        std::int64_t len = detail::get_u32be(header);
        unfinished = len == 0 || (len >= options_.min_msg_size &&
                                  len <= options_.max_msg_size && pos + 4 + len > st.st_size);
      }
    }
    if (zeros || unfinished) {
      std::string what = zeros ? " preallocated bytes after the last record of "
                               : " bytes of an unfinished write after the last record of ";
      if (::ftruncate(fd, pos) == 0 && ::fdatasync(fd) == 0) {
        log(zeros ? LogLevel::info : LogLevel::warn, "cut " + std::to_string(cut) + what + path);
      } else {
        log(LogLevel::warn, "failed to cut the unfinished tail of " + path + " - " +
                                ec_text(file_io::errno_code()));
      }
    }
  }
  ::close(fd);
}

void DiskQueue::close_files() {
  {
    std::lock_guard lock(mu_);
    if (write_file_) cut_fill(*write_file_, write_pos_);
    write_file_.reset();
  }
  std::lock_guard read_lock(read_mu_);
  close_read_file();
}

// ---------------------------------------------------------------------------
// Checkpoints

std::error_code DiskQueue::checkpoint() {
  std::lock_guard meta_lock(meta_mu_);
  return checkpoint_locked();
}

// The meta file names the committed read position (the read position unless
// manual_read_commit) and counts every record a reopen would deliver.
std::error_code DiskQueue::checkpoint_locked() {
  meta_file::Meta meta;
  std::shared_ptr<File> file;
  std::int64_t counted;
  {
    std::lock_guard lock(mu_);
    if (closed_) return make_error_code(errc::exiting);
    if (options_.manual_read_commit) {
      meta = {depth_ + static_cast<std::int64_t>(read_seq_ - committed_seq_), commit_file_num_,
              commit_pos_, write_file_num_, write_pos_};
    } else {
      meta = {depth_, read_file_num_, read_pos_, write_file_num_, write_pos_};
    }
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
  // Segments wholly behind the committed position go only now that the
  // meta file no longer names them, so a crash can never point at a file
  // that is gone.
  if (options_.manual_read_commit) {
    for (; delete_from_ < meta.read_file_num; ++delete_from_) {
      ::unlink(segment_path(delete_from_).c_str());
    }
  }
  std::lock_guard lock(mu_);
  unsynced_ops_ = std::max<std::int64_t>(0, unsynced_ops_ - counted);
  return {};
}

// ---------------------------------------------------------------------------
// Bookkeeping

std::int64_t DiskQueue::depth() const {
  std::lock_guard lock(mu_);
  return depth_;
}

std::int64_t DiskQueue::uncommitted() const {
  std::lock_guard lock(mu_);
  return static_cast<std::int64_t>(read_seq_ - committed_seq_);
}

DiskQueue::Positions DiskQueue::positions() const {
  std::lock_guard lock(mu_);
  Positions p{read_file_num_, read_pos_, write_file_num_, write_pos_, depth_};
  if (options_.manual_read_commit) {
    p.commit_file_num = commit_file_num_;
    p.commit_pos = commit_pos_;
    p.uncommitted = static_cast<std::int64_t>(read_seq_ - committed_seq_);
  } else {
    p.commit_file_num = read_file_num_;
    p.commit_pos = read_pos_;
  }
  return p;
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
