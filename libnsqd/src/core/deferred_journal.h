#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <system_error>
#include <vector>

#include "core/deferred_file.h"
#include "core/disk_writer.h"
#include "diskqueue/disk_queue.h"

namespace nsq::nsqd {

// With --sync-publish, when a channel's deferred messages are due, kept
// across a crash (issue 21; docs/operations.md). Each DPUB and each delayed
// REQ appends one deferred_file line per message to a disk queue of its own,
// "<topic>:<channel>:deferred" (':' is in no topic or channel name: it names
// no other queue, and Go nsqd never opens it), fsynced in the same group
// commit as the message, so an acknowledged DPUB's due time is on disk with
// it. At start it is read in full, the last line for an id winning. It is
// compacted once it holds several times what is still deferred: the live
// entries are appended anew, then what came before them is committed as read
// (the disk queue deletes its finished segments).
//
// Thread safety: append() and end() from any thread; read_all() and
// compact() from one thread at a time (the queue has one reader).
class DeferredJournal {
 public:
  explicit DeferredJournal(std::shared_ptr<diskqueue::DiskQueue> queue)
      : queue_(std::move(queue)) {}

  // Every entry not yet compacted away, oldest first.
  std::vector<deferred_file::Entry> read_all();

  // The write that appends `entries`, for a spill (DiskWriter).
  DiskWrite append(std::span<const deferred_file::Entry> entries) const;

  // Where appended lines end now: what a compaction may drop.
  struct Mark {
    std::int64_t file_num = 0, pos = 0;
  };
  Mark end() const;

  // Appends `live` (fsynced), then drops every line before `before`.
  // Blocking: on a disk thread.
  std::error_code compact(std::span<const deferred_file::Entry> live, Mark before);

  const std::shared_ptr<diskqueue::DiskQueue>& queue() const { return queue_; }

 private:
  // Reads up to `before`, remembering the last token there.
  void read_until(Mark before, std::vector<deferred_file::Entry>* out);

  std::shared_ptr<diskqueue::DiskQueue> queue_;
  std::optional<diskqueue::ReadToken> last_read_;  // the last line read at or before a mark
};

}  // namespace nsq::nsqd
