#pragma once

// The underlying array of a std::priority_queue (a heap), read-only: what
// peeking and snapshots of a channel's deferred messages walk, in heap order,
// without popping (and so reordering) anything.
namespace nsq::nsqd {

template <class PQ>
const typename PQ::container_type& heap_array(const PQ& pq) {
  struct Access : PQ {
    static const typename PQ::container_type& of(const PQ& q) { return q.*(&Access::c); }
  };
  return Access::of(pq);
}

}  // namespace nsq::nsqd
