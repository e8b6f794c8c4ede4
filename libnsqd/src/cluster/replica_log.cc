#include "cluster/replica_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>

#include "core/read_file.h"
#include "diskqueue/atomic_file.h"
#include "diskqueue/zero_fill.h"
#include "nsq/endian.h"
#include "nsqd/errc.h"

namespace nsq::nsqd::cluster {
namespace {

std::error_code last_error() { return {errno, std::generic_category()}; }

std::shared_ptr<const int> own_fd(int fd) {
  return std::shared_ptr<const int>(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
}

std::error_code write_all(int fd, std::string_view bytes, std::uint64_t at) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      return last_error();
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    at += static_cast<std::uint64_t>(n);
  }
  return {};
}

tl::expected<std::string, std::error_code> read_at(int fd, std::uint64_t at, std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(at + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(last_error());
    }
    if (r == 0) return tl::unexpected(make_error_code(errc::log_corrupt));  // shorter than known
    got += static_cast<std::size_t>(r);
  }
  return out;
}

std::error_code sync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return last_error();
  const int r = ::fsync(fd);
  const std::error_code ec = r == 0 ? std::error_code() : last_error();
  ::close(fd);
  return ec;
}

// "<topic>.replica.<20 digits>.log" -> the digits' value.
std::optional<std::uint64_t> segment_start(std::string_view name, std::string_view prefix) {
  constexpr std::string_view kSuffix = ".log";
  if (!name.starts_with(prefix) || !name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - kSuffix.size());
  if (digits.size() != 20) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

// "epoch offset" lines; lines that do not parse end the list (a torn file
// cannot happen: it is replaced atomically).
std::vector<std::pair<std::uint32_t, std::uint64_t>> parse_epochs(std::string_view text) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    std::uint32_t epoch = 0;
    std::uint64_t offset = 0;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) break;
    auto a = std::from_chars(line.data(), line.data() + space, epoch);
    auto b = std::from_chars(line.data() + space + 1, line.data() + line.size(), offset);
    if (a.ec != std::errc() || b.ec != std::errc() || b.ptr != line.data() + line.size()) break;
    if (!out.empty() && (epoch <= out.back().first || offset < out.back().second)) break;
    out.emplace_back(epoch, offset);
  }
  return out;
}

}  // namespace

std::filesystem::path state_path(const std::filesystem::path& dir, const std::string& topic) {
  return dir / (topic + ".replica.state");
}

std::error_code remove_replica_files(const std::filesystem::path& dir, const std::string& topic) {
  const std::string prefix = topic + ".replica.";
  std::vector<std::filesystem::path> doomed = {dir / (prefix + "epochs"), state_path(dir, topic)};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (segment_start(entry.path().filename().string(), prefix)) doomed.push_back(entry.path());
  }
  if (ec) return ec;
  for (const auto& path : doomed) {
    std::filesystem::remove(path, ec);
    if (ec) return ec;
  }
  return sync_dir(dir);
}

std::filesystem::path ReplicaLog::segment_path(std::uint64_t start) const {
  char digits[21];
  std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(start));
  return options_.dir / (options_.topic + ".replica." + digits + ".log");
}

std::filesystem::path ReplicaLog::epochs_path() const {
  return options_.dir / (options_.topic + ".replica.epochs");
}

tl::expected<ReplicaLog::Segment, std::error_code> ReplicaLog::create_segment(
    std::uint64_t start) const {
  const int fd = ::open(segment_path(start).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return tl::unexpected(last_error());
  Segment s{start, 0, own_fd(fd)};
  if (::ftruncate(fd, 0) != 0) return tl::unexpected(last_error());
  if (auto ec = sync_dir(options_.dir)) return tl::unexpected(ec);
  return s;
}

tl::expected<ReplicaLog::Opened, std::error_code> ReplicaLog::open(Options options) {
  Opened opened;
  opened.log.reset(new ReplicaLog(std::move(options)));
  ReplicaLog& log = *opened.log;
  const std::string prefix = log.options_.topic + ".replica.";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(log.options_.dir, ec)) {
    const auto start = segment_start(entry.path().filename().string(), prefix);
    if (!start) continue;
    const int fd = ::open(entry.path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return tl::unexpected(last_error());
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return tl::unexpected(last_error());
    }
    log.segments_.push_back(Segment{*start, static_cast<std::uint64_t>(st.st_size), own_fd(fd)});
  }
  if (ec) return tl::unexpected(ec);
  std::sort(log.segments_.begin(), log.segments_.end(),
            [](const Segment& a, const Segment& b) { return a.start < b.start; });

  // Segments must follow each other; after a gap or an overlap nothing can
  // be trusted: those later segments go.
  for (std::size_t i = 1; i < log.segments_.size(); ++i) {
    const Segment& prev = log.segments_[i - 1];
    if (prev.start + prev.size == log.segments_[i].start) continue;
    for (std::size_t j = i; j < log.segments_.size(); ++j) {
      std::filesystem::remove(log.segment_path(log.segments_[j].start), ec);
    }
    opened.repaired += "removed segments from offset " + std::to_string(log.segments_[i].start) +
                       " (not contiguous); ";
    log.segments_.resize(i);
    break;
  }
  if (log.segments_.empty()) {
    auto first = log.create_segment(0);
    if (!first) return tl::unexpected(first.error());
    log.segments_.push_back(std::move(*first));
  }

  // The tail: keep its whole, valid records (and the zeros filled ahead of them).
  Segment& last = log.segments_.back();
  std::uint64_t valid = 0;
  std::string buffer;
  constexpr std::size_t kChunk = 4 << 20;
  for (std::uint64_t at = 0; at < last.size;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, last.size - at));
    auto chunk = read_at(*last.fd, at, n);
    if (!chunk) return tl::unexpected(chunk.error());
    at += n;
    buffer += *chunk;
    const ScannedRecords scanned = scan_records(buffer, log.options_.max_record);
    valid += scanned.consumed;
    buffer.erase(0, scanned.consumed);
    if (scanned.corrupt) break;
  }
  last.filled = last.size;
  if (valid != last.size && diskqueue::all_zero(*last.fd, static_cast<std::int64_t>(valid),
                                                static_cast<std::int64_t>(last.size))) {
    last.size = valid;  // filled ahead: appends overwrite the zeros
  } else if (valid != last.size) {
    if (::ftruncate(*last.fd, static_cast<off_t>(valid)) != 0 || ::fdatasync(*last.fd) != 0) {
      return tl::unexpected(last_error());
    }
    opened.repaired += "cut " + std::to_string(last.size - valid) + " bytes after offset " +
                       std::to_string(last.start + valid) + " (a torn or corrupt tail); ";
    last.size = valid;
    last.filled = valid;
  }
  log.durable_end_ = log.end_locked();

  auto epochs = read_file_if_exists(log.epochs_path());
  if (!epochs) return tl::unexpected(make_error_code(errc::log_corrupt));
  if (*epochs) log.epochs_ = parse_epochs(**epochs);
  const std::size_t known = log.epochs_.size();
  std::erase_if(log.epochs_, [&](const auto& e) { return e.second > log.end_locked(); });
  if (log.epochs_.size() != known) {
    if (auto saved = log.save_epochs()) return tl::unexpected(saved);
    opened.repaired += "dropped epochs beginning past the end; ";
  }
  if (!opened.repaired.empty()) opened.repaired.resize(opened.repaired.size() - 2);
  return opened;
}

ReplicaLog::~ReplicaLog() {
  std::lock_guard lock(mu_);
  (void)cut_fill_locked();  // a stopped node's log is its records alone
}

std::uint64_t ReplicaLog::start() const {
  std::lock_guard lock(mu_);
  return segments_.front().start;
}

std::uint64_t ReplicaLog::end() const {
  std::lock_guard lock(mu_);
  return end_locked();
}

std::uint64_t ReplicaLog::durable_end() const {
  std::lock_guard lock(mu_);
  return durable_end_;
}

tl::expected<std::uint64_t, std::error_code> ReplicaLog::append(std::string_view framed) {
  std::lock_guard lock(mu_);
  if (segments_.back().size > 0 && segments_.back().size + framed.size() > options_.segment_bytes) {
    // Roll: the full segment is cut to its records and made durable first,
    // so opening trusts it.
    if (auto ec = cut_fill_locked()) return tl::unexpected(ec);
    if (::fdatasync(*segments_.back().fd) != 0) return tl::unexpected(last_error());
    auto next = create_segment(end_locked());
    if (!next) return tl::unexpected(next.error());
    durable_end_ = end_locked();
    segments_.push_back(std::move(*next));
  }
  fill_ahead_locked(end_locked() + framed.size());
  Segment& last = segments_.back();
  if (auto ec = write_all(*last.fd, framed, last.size)) {
    // Leave no partial record behind.
    (void)::ftruncate(*last.fd, static_cast<off_t>(last.size));
    last.filled = last.size;
    return tl::unexpected(ec);
  }
  last.size += framed.size();
  last.filled = std::max(last.filled, last.size);
  return end_locked();
}

void ReplicaLog::fill_ahead_locked(std::uint64_t end) {
  Segment& last = segments_.back();
  if (options_.preallocate_bytes == 0 || end <= last.start + last.filled) return;
  const std::uint64_t from = std::max(last.filled, last.size);
  const std::uint64_t to =
      std::max(end - last.start,
               std::min(end - last.start + options_.preallocate_bytes, options_.segment_bytes));
  last.filled = from + static_cast<std::uint64_t>(
                           diskqueue::write_zeros(*last.fd, static_cast<std::int64_t>(from),
                                                  static_cast<std::int64_t>(to - from))
                               .written);
}

std::error_code ReplicaLog::cut_fill_locked() {
  Segment& last = segments_.back();
  if (last.filled <= last.size) return {};
  if (::ftruncate(*last.fd, static_cast<off_t>(last.size)) != 0) return last_error();
  last.filled = last.size;
  return {};
}

std::error_code ReplicaLog::sync() {
  std::lock_guard syncing(sync_mu_);
  std::shared_ptr<const int> fd;
  std::uint64_t target;
  {
    std::lock_guard lock(mu_);
    if (durable_end_ == end_locked()) return {};
    fd = segments_.back().fd;
    target = end_locked();
  }
  if (::fdatasync(*fd) != 0) return last_error();
  std::lock_guard lock(mu_);
  durable_end_ = std::max(durable_end_, target);
  return {};
}

tl::expected<std::string, std::error_code> ReplicaLog::read(std::uint64_t offset,
                                                            std::size_t max_bytes) const {
  Segment segment;
  {
    std::lock_guard lock(mu_);
    if (offset < segments_.front().start || offset > end_locked()) {
      return tl::unexpected(make_error_code(errc::log_out_of_range));
    }
    if (offset == end_locked()) return std::string();
    auto it = std::upper_bound(segments_.begin(), segments_.end(), offset,
                               [](std::uint64_t o, const Segment& s) { return o < s.start; });
    segment = *std::prev(it);
  }
  const std::uint64_t within = offset - segment.start;
  const std::uint64_t left = segment.size - within;
  if (left < kLogRecordHeader) return tl::unexpected(make_error_code(errc::log_corrupt));
  // The first record whole, however large; then what fits in max_bytes.
  auto head = read_at(*segment.fd, within, 4);
  if (!head) return tl::unexpected(head.error());
  const std::size_t first = get_u32be(head->data());
  const std::size_t want = static_cast<std::size_t>(
      std::min<std::uint64_t>(left, std::max<std::size_t>(max_bytes, first + 8)));
  auto bytes = read_at(*segment.fd, within, want);
  if (!bytes) return tl::unexpected(bytes.error());
  const ScannedRecords scanned = scan_records(*bytes, options_.max_record);
  if (scanned.count == 0) return tl::unexpected(make_error_code(errc::log_corrupt));
  bytes->resize(scanned.consumed);
  return bytes;
}

std::error_code ReplicaLog::truncate(std::uint64_t offset) {
  std::lock_guard syncing(sync_mu_);
  std::lock_guard lock(mu_);
  if (offset < segments_.front().start || offset > end_locked()) {
    return make_error_code(errc::log_out_of_range);
  }
  const std::uint64_t old_end = end_locked();
  std::error_code ec;
  while (segments_.size() > 1 && segments_.back().start >= offset) {
    std::filesystem::remove(segment_path(segments_.back().start), ec);
    if (ec) return ec;
    segments_.pop_back();
  }
  Segment& last = segments_.back();
  if (::ftruncate(*last.fd, static_cast<off_t>(offset - last.start)) != 0 ||
      ::fdatasync(*last.fd) != 0) {
    return last_error();
  }
  last.size = offset - last.start;
  last.filled = last.size;
  durable_end_ = std::min(durable_end_, offset);
  const std::size_t known = epochs_.size();
  // An epoch that began at `offset` lost its records too (unless none went).
  std::erase_if(epochs_, [&](const auto& e) {
    return e.second > offset || (e.second == offset && offset < old_end);
  });
  if (epochs_.size() != known) return save_epochs();
  return {};
}

std::error_code ReplicaLog::trim(std::uint64_t offset) {
  std::lock_guard syncing(sync_mu_);
  std::lock_guard lock(mu_);
  std::error_code ec;
  while (segments_.size() > 1 && segments_.front().start + segments_.front().size <= offset) {
    std::filesystem::remove(segment_path(segments_.front().start), ec);
    if (ec) return ec;
    segments_.erase(segments_.begin());
  }
  return {};
}

std::error_code ReplicaLog::restart_at(std::uint64_t offset, std::uint32_t epoch) {
  std::lock_guard syncing(sync_mu_);
  std::lock_guard lock(mu_);
  // Old segments go first: a crash in between leaves no segment, which
  // opens as an empty log at 0, and the leader says again where to start.
  std::error_code ec;
  for (const Segment& s : segments_) {
    std::filesystem::remove(segment_path(s.start), ec);
    if (ec) return ec;
  }
  segments_.clear();
  auto fresh = create_segment(offset);
  if (!fresh) {
    // Never without a segment: an empty one at 0 keeps the log usable.
    auto zero = create_segment(0);
    if (zero) segments_.push_back(std::move(*zero));
    return fresh.error();
  }
  segments_.push_back(std::move(*fresh));
  durable_end_ = offset;
  epochs_.clear();
  if (epoch > 0) epochs_.emplace_back(epoch, offset);
  return save_epochs();
}

std::error_code ReplicaLog::begin_epoch(std::uint32_t epoch) {
  std::lock_guard lock(mu_);
  if (!epochs_.empty() && epoch <= epochs_.back().first) {
    return epoch == epochs_.back().first ? std::error_code()
                                         : make_error_code(errc::log_out_of_range);
  }
  epochs_.emplace_back(epoch, end_locked());
  return save_epochs();
}

std::uint32_t ReplicaLog::last_epoch() const {
  std::lock_guard lock(mu_);
  return epochs_.empty() ? 0 : epochs_.back().first;
}

std::uint64_t ReplicaLog::end_of_epoch(std::uint32_t epoch) const {
  std::lock_guard lock(mu_);
  for (const auto& [e, start] : epochs_) {
    if (e > epoch) return start;
  }
  return end_locked();
}

std::uint32_t ReplicaLog::epoch_at(std::uint64_t offset) const {
  std::lock_guard lock(mu_);
  std::uint32_t at = 0;
  for (const auto& [e, start] : epochs_) {
    if (start <= offset) at = e;
  }
  return at;
}

std::error_code ReplicaLog::save_epochs() const {
  std::string text;
  for (const auto& [epoch, start] : epochs_) {
    text += std::to_string(epoch) + " " + std::to_string(start) + "\n";
  }
  if (auto ec = diskqueue::write_file_atomic(epochs_path(), text)) return ec;
  return sync_dir(options_.dir);  // the rename must survive a power cut
}

}  // namespace nsq::nsqd::cluster
