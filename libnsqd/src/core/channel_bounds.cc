// Bounded channels (issue 21; docs/operations.md): max_depth with the reject
// policy refuses a publish that would not fit (the topic asks would_reject
// first); with drop_oldest the oldest queued messages make room.
#include "core/channel.h"

#include <algorithm>

namespace nsq::nsqd {

// mu_ held. Queued messages: memory, read-ahead, handed off and on disk, less
// what drop_oldest already counts as gone.
std::int64_t Channel::depth_locked() const {
  const std::int64_t on_disk = backend_ ? backend_->depth() : 0;
  return static_cast<std::int64_t>(memory_.size() + from_disk_.size()) + handed_off_ + on_disk -
         drop_debt_;
}

bool Channel::would_reject(std::int64_t n) const {
  std::lock_guard lock(mu_);
  return settings_.rejects_beyond() && depth_locked() + n > settings_.max_depth;
}

// mu_ held. drop_oldest: down to max_depth, oldest first. A bounded channel
// no longer spills, so its disk queue holds what was queued before (after a
// restart, everything): taken as older than what is in memory, unless the
// read-ahead's front says otherwise by its timestamp. What is still unread
// on disk is dropped as the refills read it (drop_debt_).
void Channel::trim_locked() {
  std::int64_t excess = depth_locked() - settings_.max_depth;
  std::int64_t unread = (backend_ ? backend_->depth() : 0) - drop_debt_;
  while (excess > 0) {
    const bool read_ahead_older =
        !from_disk_.empty() && (memory_.empty() || from_disk_.front().msg->timestamp() <=
                                                       memory_.front().msg->timestamp());
    std::deque<QueuedMessage>* from = nullptr;
    if (read_ahead_older) {
      from = &from_disk_;
    } else if (unread > 0) {
      const std::int64_t owed = std::min(excess, unread);
      drop_debt_ += owed;
      unread -= owed;
      excess -= owed;
      start_refill_locked();
      continue;
    } else if (!memory_.empty()) {
      from = &memory_;
    } else if (!from_disk_.empty()) {
      from = &from_disk_;
    } else {
      break;
    }
    if (ledger_) ledger_->finished(name_, *from->front().msg);
    release_locked(from->front());
    from->pop_front();
    ++dropped_count_;
    --excess;
  }
}

}  // namespace nsq::nsqd
