#pragma once

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "read_commits.h"

namespace nsq::diskqueue {

// An open segment; the fd closes when the last holder (the writer, or a
// batch waiting for its fsync) lets go.
struct OpenSegment {
  OpenSegment(int f, std::string p) : fd(f), path(std::move(p)) {}
  ~OpenSegment() { ::close(fd); }
  OpenSegment(const OpenSegment&) = delete;
  OpenSegment& operator=(const OpenSegment&) = delete;
  const int fd;
  const std::string path;
  // The file is zero-filled (or holds records) up to here; only the writer
  // role touches it (preallocate_bytes).
  std::int64_t filled_to = 0;
};

// Where the reader and the writer are: the state every part of the queue
// reads, owned by DiskQueue::Impl and shared by reference.
struct QueueState {
  // Guards the fields below, and the fields the parts of the queue keep
  // beside them (GroupCommit's batches and roles, the Checkpointer's
  // schedule, ReadableSignal's waiters): one put or one read updates several
  // of them and takes this lock once. Held for bookkeeping only, never
  // across file I/O or a callback. Lock order: the writer role (GroupCommit),
  // SegmentReader's lock, the Checkpointer's lock, this.
  mutable std::mutex mu;

  std::int64_t depth = 0;          // records not yet read
  std::int64_t read_file_num = 0;  // the next record to read
  std::int64_t read_pos = 0;
  // Changed only by the holder of the writer role, which therefore reads
  // them without the lock.
  std::int64_t write_file_num = 0;
  std::int64_t write_pos = 0;
  std::shared_ptr<OpenSegment> write_file;
  std::uint64_t generation = 0;  // bumped when files vanish under the reader
  bool closed = false;
  ReadCommits commits;

  explicit QueueState(bool manual_read_commit) : commits(manual_read_commit) {}

  bool has_data() const { return read_file_num != write_file_num || read_pos != write_pos; }
};

}  // namespace nsq::diskqueue
