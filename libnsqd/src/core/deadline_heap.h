#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace nsq::nsqd {

// A binary min-heap of pointers ordered by T::deadline that also removes any
// element in O(log n): each T keeps its position in T::heap_index. Used for
// in-flight messages, which are usually removed (FIN) long before they expire.
template <class T>
class DeadlineHeap {
 public:
  bool empty() const noexcept { return items_.empty(); }
  std::size_t size() const noexcept { return items_.size(); }
  T* top() const noexcept { return items_.front(); }

  void push(T* item) {
    item->heap_index = items_.size();
    items_.push_back(item);
    sift_up(item->heap_index);
  }

  void remove(T* item) {
    std::size_t i = item->heap_index;
    std::size_t last = items_.size() - 1;
    if (i != last) {
      place(i, items_[last]);
      items_.pop_back();
      sift_down(i);
      sift_up(i);
    } else {
      items_.pop_back();
    }
  }

  // After item->deadline changed.
  void update(T* item) {
    sift_down(item->heap_index);
    sift_up(item->heap_index);
  }

  void clear() noexcept { items_.clear(); }

 private:
  void place(std::size_t i, T* item) {
    items_[i] = item;
    item->heap_index = i;
  }
  void sift_up(std::size_t i) {
    T* item = items_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!(item->deadline < items_[parent]->deadline)) break;
      place(i, items_[parent]);
      i = parent;
    }
    place(i, item);
  }
  void sift_down(std::size_t i) {
    T* item = items_[i];
    std::size_t n = items_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && items_[child + 1]->deadline < items_[child]->deadline) ++child;
      if (!(items_[child]->deadline < item->deadline)) break;
      place(i, items_[child]);
      i = child;
    }
    place(i, item);
  }

  std::vector<T*> items_;
};

}  // namespace nsq::nsqd
