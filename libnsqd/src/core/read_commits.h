#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "diskqueue/disk_queue.h"

namespace nsq::nsqd {

// The records a channel read from its manual-commit disk queue
// (--sync-publish) and has not finished, in read order. A disk queue
// commits by position, but messages are FIN'd in any order: the position
// may only move past a record once it and every record before it are done,
// so a crash re-delivers whatever was not (at-least-once).
//
// @par Thread Safety: none; the channel's mutex guards it.
class ReadCommits {
 public:
  void add(const diskqueue::ReadToken& token) { entries_.emplace(token.seq, Entry{token, false}); }

  // Marks the record done. Returns the token to commit when the done prefix
  // grew, nullopt otherwise (an unknown seq, or an earlier record still out).
  std::optional<diskqueue::ReadToken> finish(std::uint64_t seq) {
    auto it = entries_.find(seq);
    if (it == entries_.end()) return std::nullopt;
    it->second.done = true;
    std::optional<diskqueue::ReadToken> commit;
    while (!entries_.empty() && entries_.begin()->second.done) {
      commit = entries_.begin()->second.token;
      entries_.erase(entries_.begin());
    }
    return commit;
  }

  void clear() { entries_.clear(); }
  std::size_t outstanding() const { return entries_.size(); }

 private:
  struct Entry {
    diskqueue::ReadToken token;
    bool done;
  };
  std::map<std::uint64_t, Entry> entries_;  // by seq: read order
};

}  // namespace nsq::nsqd
