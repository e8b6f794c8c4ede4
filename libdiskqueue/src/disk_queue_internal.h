#pragma once

// Private pieces shared by the DiskQueue source files (disk_queue.cc: opening,
// control operations, checkpoints; disk_queue_write.cc: puts and group commit;
// disk_queue_read.cc: reading and read commits).
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include "diskqueue/disk_queue.h"

namespace nsq::diskqueue {

// An open segment; the fd closes when the last holder (the writer, or a
// batch waiting for its fsync) lets go.
struct DiskQueue::File {
  File(int f, std::string p) : fd(f), path(std::move(p)) {}
  ~File() { ::close(fd); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  const int fd;
  const std::string path;
  // The file is zero-filled (or holds records) up to here; only the writer
  // role touches it (preallocate_bytes).
  std::int64_t filled_to = 0;
};

// Records appended together and written with one pwrite (disk_queue_write.cc).
struct DiskQueue::Batch {
  // Progress, only ever increasing. Waiters block on it with atomic wait.
  static constexpr std::uint32_t kOpen = 0;      // taking records
  static constexpr std::uint32_t kTurn = 1;      // writer role free: a member should take it
  static constexpr std::uint32_t kWriting = 2;   // being written
  static constexpr std::uint32_t kWritten = 3;   // in the file; waiting for an fsync
  static constexpr std::uint32_t kSyncTurn = 4;  // syncer role free: a member should take it
  static constexpr std::uint32_t kDone = 5;      // written (and fsynced if durable), or failed

  std::atomic<std::uint32_t> state{kOpen};
  // Guarded by mu_ while the batch is open_, then owned by the writer.
  std::string data;
  std::int64_t records = 0;
  bool durable = false;
  int plain_members = 0;    // callers that return at kWritten
  int durable_members = 0;  // callers that return at kDone
  // Set before state moves past kWriting (write_ec) or reaches kDone
  // (sync_ec); read by members after an acquire load of state.
  std::error_code write_ec;
  std::error_code sync_ec;
  std::shared_ptr<File> file;  // holds the batch's tail; guarded by mu_
};

namespace detail {

inline std::uint32_t get_u32be(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         std::uint32_t{b[3]};
}

inline void append_u32be(std::string& out, std::uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  out.append(b, 4);
}

inline std::string ec_text(std::error_code ec) { return ec.message(); }

}  // namespace detail
}  // namespace nsq::diskqueue
