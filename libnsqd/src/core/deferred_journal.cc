#include "core/deferred_journal.h"

#include <limits>
#include <string>

namespace nsq::nsqd {
namespace {

constexpr std::size_t kReadBatch = 1024;
constexpr std::size_t kReadBytes = 1 << 20;

// deferred_file's line, its due time zero-padded to 13 digits: never
// shorter than the smallest record the disk queue takes (a message header).
std::vector<std::string> lines_of(std::span<const deferred_file::Entry> entries) {
  std::vector<std::string> lines;
  lines.reserve(entries.size());
  for (const auto& e : entries) {
    std::string due = std::to_string(e.due_unix_ms);
    if (due.size() < 13) due.insert(0, 13 - due.size(), '0');
    std::string line(e.id.data(), e.id.size());
    line += ' ';
    line += due;
    line += '\n';
    lines.push_back(std::move(line));
  }
  return lines;
}

bool after(const diskqueue::ReadToken& t, DeferredJournal::Mark m) {
  return t.file_num > m.file_num || (t.file_num == m.file_num && t.pos > m.pos);
}

}  // namespace

void DeferredJournal::read_until(Mark before, std::vector<deferred_file::Entry>* out) {
  bool past = false;
  while (!past) {
    const std::size_t read = queue_->read_each(
        kReadBatch, kReadBytes, [&](std::string_view line, const diskqueue::ReadToken& token) {
          // Lines past the mark are read too (a batch does not stop at it):
          // they are committed by a later compaction, whose mark is beyond.
          if (past || after(token, before)) {
            past = true;
            return;
          }
          last_read_ = token;
          if (out) {
            for (const auto& e : deferred_file::decode(line)) out->push_back(e);
          }
        });
    if (read == 0) break;
  }
}

std::vector<deferred_file::Entry> DeferredJournal::read_all() {
  std::vector<deferred_file::Entry> out;
  read_until({std::numeric_limits<std::int64_t>::max(), 0}, &out);
  return out;
}

DiskWrite DeferredJournal::append(std::span<const deferred_file::Entry> entries) const {
  return DiskWrite{queue_, lines_of(entries), nullptr, diskqueue::Durability::fsync};
}

DeferredJournal::Mark DeferredJournal::end() const {
  const auto p = queue_->positions();
  return {p.write_file_num, p.write_pos};
}

std::error_code DeferredJournal::compact(std::span<const deferred_file::Entry> live, Mark before) {
  if (!live.empty()) {
    const std::vector<std::string> lines = lines_of(live);
    const std::vector<std::string_view> views(lines.begin(), lines.end());
    if (auto ec = queue_->put_batch(views, diskqueue::Durability::fsync)) return ec;
  }
  // Only once the live entries are on disk may the older lines go.
  read_until(before, nullptr);
  if (!last_read_) return {};
  return queue_->commit_read(*last_read_);
}

}  // namespace nsq::nsqd
