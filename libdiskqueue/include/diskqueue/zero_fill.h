#pragma once

#include <cstdint>
#include <system_error>

// Zero-filling a file ahead of its appends: an fdatasync after a write that
// overwrites blocks already allocated has no file size or block map to
// commit, only the data (the disk queue's preallocate_bytes, and cluster
// mode's replica logs).
namespace nsq::diskqueue {

// Writes `size` zero bytes at `offset`. On an error (a full disk), `written`
// says how many were written before it.
struct ZeroFill {
  std::int64_t written = 0;
  std::error_code ec;
};
ZeroFill write_zeros(int fd, std::int64_t offset, std::int64_t size);

// Whether the bytes in [from, to) all read as zero (false on a read error).
bool all_zero(int fd, std::int64_t from, std::int64_t to);

}  // namespace nsq::diskqueue
