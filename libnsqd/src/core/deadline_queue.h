#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/deadline_heap.h"

namespace nsq::nsqd {

// In-flight messages by deadline, for the way they come: messages handed out
// with the same timeout fall due in the order they were handed out, so each
// timeout gets a lane, an intrusive FIFO list kept in deadline order, where a
// push or a removal (a FIN, nearly always long before the deadline) touches
// at most two neighbours instead of a heap's log n levels (a FIN's heap
// removal was 5% of delivery's CPU). An item that would break its lane's
// order (a TOUCH capped by --max-msg-timeout, more distinct timeouts at once
// than lanes) goes to a heap beside them. The earliest is the first of some
// lane or the heap's top.
//
// T has `deadline`, `heap_index` (DeadlineHeap's), `prev`, `next` (T*) and
// `lane` (std::uint8_t). Items are not owned, and must stay put while queued.
template <class T, class Duration>
class DeadlineQueue {
 public:
  static constexpr std::size_t kLanes = 4;
  static constexpr std::uint8_t kInHeap = 0xff;

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  // `timeout`: what the item's deadline was computed from (now + timeout),
  // which picks its lane.
  void push(T* item, Duration timeout) {
    ++size_;
    const std::size_t i = lane_for(timeout);
    if (i < kLanes) {
      Lane& lane = lanes_[i];
      if (lane.tail == nullptr || !(item->deadline < lane.tail->deadline)) {
        item->lane = static_cast<std::uint8_t>(i);
        item->prev = lane.tail;
        item->next = nullptr;
        (lane.tail ? lane.tail->next : lane.head) = item;
        lane.tail = item;
        return;
      }
    }
    item->lane = kInHeap;
    heap_.push(item);
  }

  void remove(T* item) {
    --size_;
    if (item->lane == kInHeap) {
      heap_.remove(item);
      return;
    }
    Lane& lane = lanes_[item->lane];
    (item->prev ? item->prev->next : lane.head) = item->next;
    (item->next ? item->next->prev : lane.tail) = item->prev;
  }

  // The earliest deadline's item; the queue must not be empty.
  T* top() const noexcept {
    T* best = heap_.empty() ? nullptr : heap_.top();
    for (std::size_t i = 0; i < used_; ++i) {
      T* head = lanes_[i].head;
      if (head != nullptr && (best == nullptr || head->deadline < best->deadline)) best = head;
    }
    return best;
  }

  void clear() noexcept {
    lanes_ = {};
    used_ = 0;
    heap_.clear();
    size_ = 0;
  }

 private:
  struct Lane {
    Duration timeout{};
    T* head = nullptr;
    T* tail = nullptr;
  };

  // The lane of `timeout`, an empty lane given to it, or kLanes: none free.
  std::size_t lane_for(Duration timeout) {
    for (std::size_t i = 0; i < used_; ++i) {
      if (lanes_[i].timeout == timeout) return i;
    }
    for (std::size_t i = 0; i < used_; ++i) {
      if (lanes_[i].head == nullptr) {
        lanes_[i].timeout = timeout;
        return i;
      }
    }
    if (used_ == kLanes) return kLanes;
    lanes_[used_].timeout = timeout;
    return used_++;
  }

  std::array<Lane, kLanes> lanes_{};
  std::size_t used_ = 0;
  DeadlineHeap<T> heap_;
  std::size_t size_ = 0;
};

}  // namespace nsq::nsqd
