#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "nsq/message.h"

namespace nsq::nsqd {

// Values of T by message id, for a channel's in-flight messages: each
// delivery adds one and each FIN removes it, so neither may allocate (the
// node-based std::unordered_map this replaces cost a malloc and a free per
// message, a sixth of the delivery path's CPU). Entries live in fixed-size
// chunks that never move, so a T's address is stable until it is erased
// (DeadlineHeap keeps pointers); an open-addressing index with linear
// probing finds them. Memory grows to the largest number held at once and
// is returned by clear().
//
// Not thread-safe (the channel's lock guards it).
template <class T>
class IdTable {
 public:
  IdTable() : seed_(std::random_device{}() | std::uint64_t(std::random_device{}()) << 32) {}
  IdTable(const IdTable&) = delete;
  IdTable& operator=(const IdTable&) = delete;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // The entry of `id` and true when it was added now (a value-initialized
  // T), or the existing one and false.
  std::pair<T*, bool> try_emplace(const MessageId& id) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = hash(id);
    std::size_t i = h & mask_;
    for (; slots_[i].entry != 0; i = (i + 1) & mask_) {
      Entry& e = entry(slots_[i].entry);
      if (slots_[i].tag == tag(h) && e.id == id) return {&e.value, false};
    }
    const std::uint32_t n = take_entry();
    entry(n).id = id;
    slots_[i] = Slot{tag(h), n};
    ++size_;
    return {&entry(n).value, true};
  }

  T* find(const MessageId& id) noexcept {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = hash(id);
    for (std::size_t i = h & mask_; slots_[i].entry != 0; i = (i + 1) & mask_) {
      Entry& e = entry(slots_[i].entry);
      if (slots_[i].tag == tag(h) && e.id == id) return &e.value;
    }
    return nullptr;
  }

  // Removes the entry of `id`; whether there was one.
  bool erase(const MessageId& id) noexcept {
    return visit(id, [](T&) { return true; });
  }

  // Gives the entry of `id` to `visit`, and removes it when that returns
  // true, with one lookup; whether there was an entry.
  template <class Visit>
  bool visit(const MessageId& id, Visit&& visit) {
    if (size_ == 0) return false;
    const std::uint64_t h = hash(id);
    std::size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].entry == 0) return false;
      if (slots_[i].tag == tag(h) && entry(slots_[i].entry).id == id) break;
    }
    if (!visit(entry(slots_[i].entry).value)) return true;
    const std::uint32_t n = slots_[i].entry;
    entry(n).value = T{};  // what it holds (a message) is released now
    free_.push_back(n);
    --size_;
    // Backward-shift deletion: entries after the hole that may live in it
    // move up, so lookups never need tombstones.
    for (std::size_t j = (i + 1) & mask_; slots_[j].entry != 0; j = (j + 1) & mask_) {
      const std::size_t home = slots_[j].tag & mask_;
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    return true;
  }

  // f(id, value) for every entry, in no particular order; f must not add
  // or erase.
  template <class F>
  void for_each(F&& f) {
    for (const Slot& s : slots_) {
      if (s.entry != 0) f(entry(s.entry).id, entry(s.entry).value);
    }
  }

  // for_each that stops when f returns false; const.
  template <class F>
  void visit_all_until(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.entry != 0 && !f(entry(s.entry).id, entry(s.entry).value)) return;
    }
  }

  void clear() noexcept {
    slots_.clear();
    slots_.shrink_to_fit();
    chunks_.clear();
    free_.clear();
    free_.shrink_to_fit();
    mask_ = 0;
    size_ = 0;
  }

 private:
  static constexpr std::uint32_t kChunkBits = 8;
  static constexpr std::uint32_t kChunk = 1u << kChunkBits;

  struct Entry {
    MessageId id{};
    T value{};
  };
  struct Slot {
    // The hash's low half: its home slot (the index never has 2^32 slots),
    // and most mismatches end here.
    std::uint32_t tag = 0;
    std::uint32_t entry = 0;  // 1 + the entry's number; 0: empty
  };

  static std::uint32_t tag(std::uint64_t h) noexcept { return static_cast<std::uint32_t>(h); }

  // Ids are 16 hex digits; both halves go through a 64-bit mix, seeded per
  // table so that no client can choose ids that collide.
  std::uint64_t hash(const MessageId& id) const noexcept {
    std::uint64_t a, b;
    std::memcpy(&a, id.data(), 8);
    std::memcpy(&b, id.data() + 8, 8);
    std::uint64_t h = (a ^ seed_) * 0x9e3779b97f4a7c15ULL;
    h ^= (b + (h >> 29)) * 0xc2b2ae3d27d4eb4fULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
  }

  Entry& entry(std::uint32_t n) noexcept {
    const std::uint32_t k = n - 1;
    return chunks_[k >> kChunkBits][k & (kChunk - 1)];
  }
  const Entry& entry(std::uint32_t n) const noexcept {
    const std::uint32_t k = n - 1;
    return chunks_[k >> kChunkBits][k & (kChunk - 1)];
  }

  std::uint32_t take_entry() {
    if (!free_.empty()) {
      const std::uint32_t n = free_.back();
      free_.pop_back();
      return n;
    }
    const std::uint32_t n = static_cast<std::uint32_t>(chunks_.size()) * kChunk + 1;
    chunks_.push_back(std::make_unique<Entry[]>(kChunk));
    for (std::uint32_t k = kChunk - 1; k > 0; --k) free_.push_back(n + k);
    return n;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.entry == 0) continue;
      std::size_t i = s.tag & mask_;
      while (slots_[i].entry != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  const std::uint64_t seed_;
  std::vector<Slot> slots_;  // a power of two long, at most half full
  std::size_t mask_ = 0;
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  std::vector<std::uint32_t> free_;  // entry numbers to reuse, the last first
  std::size_t size_ = 0;
};

}  // namespace nsq::nsqd
