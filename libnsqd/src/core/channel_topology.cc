// Topology-aware consumption (Go master, behind
// --enable-experiment=topology-aware-consumption): a message goes first to a
// consumer in this nsqd's zone that has room for it, then to one in its
// region, and only when there is none to the queue every consumer reads.
// Go hands it over an unbuffered channel to such a consumer's message pump;
// here it goes into that consumer's slot, which its next take() empties first.
#include "core/channel.h"

namespace nsq::nsqd {

// mu_ held. Round-robin over the local consumers, so several in one zone
// share the load; a zone consumer beats a region one.
bool Channel::hand_off_locked(QueuedMessage& m) {
  const std::size_t n = local_clients_.size();
  Slot* best = nullptr;
  std::size_t best_index = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (next_local_ + k) % n;
    auto it = clients_.find(local_clients_[i]);
    if (it == clients_.end()) continue;
    Slot& slot = it->second;
    const auto queued = static_cast<std::int64_t>(slot.handoff.size());
    if (slot.rdy - slot.in_flight - queued <= 0) continue;
    if (best == nullptr || slot.locality > best->locality) {
      best = &slot;
      best_index = i;
      if (slot.locality == Locality::zone) break;
    }
  }
  if (best == nullptr) return false;
  next_local_ = best_index + 1;
  best->handoff.push_back(std::move(m));
  best->waiting = true;  // collect_waiting_locked wakes it
  ++handed_off_;
  return true;
}

// mu_ held. What was handed to `slot` goes back to the front of the shared
// queue, in order: it left, or lowered its RDY below what it was given.
void Channel::take_back_locked(Slot& slot) {
  handed_off_ -= static_cast<std::int64_t>(slot.handoff.size());
  while (!slot.handoff.empty()) {
    memory_.push_front(std::move(slot.handoff.back()));
    slot.handoff.pop_back();
  }
  for (auto& [id, other] : clients_) {
    if (&other != &slot) other.waiting = true;
  }
}

// mu_ held.
void Channel::count_delivered_locked(Locality locality, std::int64_t n) {
  const auto count = static_cast<std::uint64_t>(n);
  switch (locality) {
    case Locality::zone:
      zone_local_count_ += count;
      break;
    case Locality::region:
      region_local_count_ += count;
      break;
    case Locality::global:
      global_count_ += count;
      break;
  }
}

}  // namespace nsq::nsqd
