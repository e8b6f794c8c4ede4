// DiskQueue forwards to its Impl; the Impl's opening, checks of the public
// calls, reads and bookkeeping are here, the operations that change the
// files under the writer role in disk_queue_control.cc.
#include "diskqueue/disk_queue.h"

#include "disk_queue_impl.h"
#include "recovery.h"

namespace nsq::diskqueue {

// ---------------------------------------------------------------------------
// DiskQueue

Result<std::unique_ptr<DiskQueue>> DiskQueue::open(Options options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(options.data_path, ec)) {
    return tl::unexpected(make_error_code(errc::not_a_directory));
  }
  return std::unique_ptr<DiskQueue>(new DiskQueue(std::make_unique<Impl>(std::move(options))));
}

DiskQueue::DiskQueue(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DiskQueue::~DiskQueue() = default;

std::error_code DiskQueue::put(std::string_view record, Durability durability) {
  return impl_->put_batch(std::span<const std::string_view>(&record, 1), durability);
}

std::error_code DiskQueue::put_batch(std::span<const std::string_view> records,
                                     Durability durability) {
  return impl_->put_batch(records, durability);
}

std::error_code DiskQueue::put_batch_async(std::vector<std::string> records, Durability durability,
                                           PutCallback done) {
  return impl_->put_batch_async(std::move(records), durability, std::move(done));
}

std::error_code DiskQueue::try_put_batch(std::span<const std::string_view> records) {
  return impl_->try_put_batch(records);
}

std::optional<std::string> DiskQueue::try_read() {
  std::optional<std::string> out;
  impl_->read_each(1, 1, [&](std::string_view data, const ReadToken&) { out.emplace(data); });
  return out;
}

std::vector<std::string> DiskQueue::read_batch(std::size_t max_records, std::size_t max_bytes) {
  std::vector<std::string> out;
  impl_->read_each(max_records, max_bytes,
                   [&](std::string_view data, const ReadToken&) { out.emplace_back(data); });
  return out;
}

bool DiskQueue::wait_readable(std::chrono::milliseconds timeout) {
  return impl_->wait_readable(timeout);
}

void DiskQueue::notify_when_readable(std::function<void()> callback) {
  impl_->notify_when_readable(std::move(callback));
}

std::optional<ReadRecord> DiskQueue::try_read_record() {
  std::optional<ReadRecord> out;
  impl_->read_each(1, 1, [&](std::string_view data, const ReadToken& token) {
    out.emplace(ReadRecord{std::string(data), token});
  });
  return out;
}

std::vector<ReadRecord> DiskQueue::read_records(std::size_t max_records, std::size_t max_bytes) {
  std::vector<ReadRecord> out;
  impl_->read_each(max_records, max_bytes, [&](std::string_view data, const ReadToken& token) {
    out.push_back(ReadRecord{std::string(data), token});
  });
  return out;
}

std::size_t DiskQueue::read_each(std::size_t max_records, std::size_t max_bytes,
                                 const RecordSink& each) {
  return impl_->read_each(max_records, max_bytes, each);
}

std::error_code DiskQueue::commit_read(const ReadToken& token) { return impl_->commit_read(token); }
std::int64_t DiskQueue::depth() const { return impl_->depth(); }
std::int64_t DiskQueue::uncommitted() const { return impl_->uncommitted(); }
std::error_code DiskQueue::sync() { return impl_->sync(); }
std::error_code DiskQueue::empty() { return impl_->empty(); }
std::error_code DiskQueue::close() { return impl_->close(); }
std::error_code DiskQueue::remove() { return impl_->remove(); }
DiskQueue::Positions DiskQueue::positions() const { return impl_->positions(); }

std::filesystem::path DiskQueue::segment_path(std::int64_t file_num) const {
  return impl_->files().segment_path(file_num);
}

std::filesystem::path DiskQueue::meta_path() const { return impl_->files().meta_path(); }

// ---------------------------------------------------------------------------
// DiskQueue::Impl

DiskQueue::Impl::Impl(Options options)
    : options_(std::move(options)),
      files_(options_.data_path, options_.name),
      log_(options_.logger, options_.name),
      state_(options_.manual_read_commit),
      readable_(state_),
      checkpointer_(options_, files_, log_, state_,
                    options_.scheduler ? options_.scheduler : std::make_shared<TimerThread>()),
      writer_(options_, files_, log_, state_, checkpointer_, readable_),
      group_(state_, writer_, log_),
      async_(options_.executor ? std::make_unique<AsyncPuts>(options_.executor, group_) : nullptr),
      reader_(options_, files_, log_, state_, checkpointer_) {
  Recovered start = recover(options_, files_, log_);
  const meta_file::Meta& at = start.positions;
  state_.depth = at.depth;
  state_.read_file_num = at.read_file_num;
  state_.read_pos = at.read_pos;
  state_.write_file_num = at.write_file_num;
  state_.write_pos = at.write_pos;
  state_.commits.start_at(at.read_file_num, at.read_pos);
  checkpointer_.start(at.read_file_num, start.unsynced);
}

DiskQueue::Impl::~Impl() {
  bool closed;
  {
    std::lock_guard lock(state_.mu);
    closed = state_.closed;
  }
  if (!closed) close();
  checkpointer_.cancel_scheduled();
  close_files();
}

bool DiskQueue::Impl::size_ok(std::size_t record_size) const {
  auto size = static_cast<std::int64_t>(record_size);
  return size >= options_.min_msg_size && size <= options_.max_msg_size;
}

bool DiskQueue::Impl::durable(Durability durability) const {
  return durability == Durability::fsync || options_.sync_every <= 1;
}

std::error_code DiskQueue::Impl::put_batch(std::span<const std::string_view> records,
                                           Durability durability) {
  for (std::string_view r : records) {
    if (!size_ok(r.size())) return make_error_code(errc::invalid_size);
  }
  if (records.empty()) return {};
  return group_.append_and_wait(records, durable(durability));
}

std::error_code DiskQueue::Impl::put_batch_async(std::vector<std::string> records,
                                                 Durability durability, PutCallback done) {
  for (const std::string& r : records) {
    if (!size_ok(r.size())) return make_error_code(errc::invalid_size);
  }
  if (!async_) {
    std::vector<std::string_view> views(records.begin(), records.end());
    std::error_code ec = put_batch(views, durability);
    if (ec == make_error_code(errc::exiting)) return ec;
    done(ec);
    return {};
  }
  return async_->put(std::move(records), durable(durability), std::move(done));
}

std::error_code DiskQueue::Impl::try_put_batch(std::span<const std::string_view> records) {
  std::int64_t bytes = 0;
  for (std::string_view r : records) {
    if (!size_ok(r.size())) return make_error_code(errc::invalid_size);
    bytes += 4 + static_cast<std::int64_t>(r.size());
  }
  if (records.empty()) return {};
  if (options_.sync_every <= 1) return make_error_code(errc::busy);
  // Puts handed to the executor go first (their callers wait for them).
  if (async_ && !async_->idle()) return make_error_code(errc::busy);
  return group_.try_write(records, bytes);
}

std::size_t DiskQueue::Impl::read_each(std::size_t max_records, std::size_t max_bytes,
                                       const RecordSink& each) {
  std::size_t count = 0, bytes = 0;
  while (count < max_records && (count == 0 || bytes < max_bytes)) {
    SegmentReader::Step step = reader_.read_next(
        each, max_records - count, count == 0 ? max_bytes : max_bytes - bytes, count, bytes);
    if (step.kind == SegmentReader::Step::Kind::bad_segment) {
      // Writer-side work: runs without the reader's lock, which it takes.
      if (control(OpKind::bad_segment, step.bad_file, step.bad_generation)) break;
    } else if (step.kind == SegmentReader::Step::Kind::empty) {
      break;
    }
  }
  return count;
}

std::error_code DiskQueue::Impl::commit_read(const ReadToken& token) {
  if (!options_.manual_read_commit) return {};
  std::lock_guard lock(state_.mu);
  if (state_.closed) return make_error_code(errc::exiting);
  auto committed = state_.commits.commit(token);
  if (!committed) return committed.error();
  if (committed->records > 0) checkpointer_.count_ops_locked(committed->records);
  // Leaving a segment: checkpoint soon, which deletes it.
  if (committed->left_segment) checkpointer_.request_locked();
  return {};
}

std::int64_t DiskQueue::Impl::depth() const {
  std::lock_guard lock(state_.mu);
  return state_.depth;
}

std::int64_t DiskQueue::Impl::uncommitted() const {
  std::lock_guard lock(state_.mu);
  return state_.commits.uncommitted();
}

DiskQueue::Positions DiskQueue::Impl::positions() const {
  std::lock_guard lock(state_.mu);
  Positions p{state_.read_file_num, state_.read_pos, state_.write_file_num, state_.write_pos,
              state_.depth};
  if (options_.manual_read_commit) {
    p.commit_file_num = state_.commits.file_num();
    p.commit_pos = state_.commits.pos();
    p.uncommitted = state_.commits.uncommitted();
  } else {
    p.commit_file_num = state_.read_file_num;
    p.commit_pos = state_.read_pos;
  }
  return p;
}

std::error_code DiskQueue::Impl::sync() {
  {
    std::lock_guard lock(state_.mu);
    if (state_.closed) return make_error_code(errc::exiting);
  }
  return checkpointer_.checkpoint();
}

}  // namespace nsq::diskqueue
