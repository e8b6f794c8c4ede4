#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "nsq/message.h"

namespace nsq::nsqd {

class MessageBatch;

// A published message: id, timestamp and body in one piece of memory,
// immutable, shared by every channel of the topic (fan-out copies a pointer,
// never the body). Per-delivery state (attempts) lives beside the reference,
// in the channel. A message is its own heap block, or one of several in a
// block that a MessageBatch made (freed with the last of them).
class Message {
 public:
  const MessageId& id() const noexcept { return id_; }
  std::int64_t timestamp() const noexcept { return timestamp_; }
  std::string_view body() const noexcept {
    return {reinterpret_cast<const char*>(this + 1), size_};
  }

 private:
  friend class MessageRef;
  friend class MessageBatch;
  struct Block {
    std::atomic<std::uint32_t> live;  // its messages not destroyed, plus the batch's own hold
    void release() noexcept {
      if (live.fetch_sub(1, std::memory_order_acq_rel) == 1) std::free(this);
    }
  };
  Message(const MessageId& id, std::int64_t timestamp, std::uint32_t size, Block* block)
      : size_(size), block_(block), timestamp_(timestamp), id_(id) {}
  static Message* place(void* at, const MessageId& id, std::int64_t timestamp,
                        std::string_view body, Block* block) noexcept {
    auto* m = new (at) Message(id, timestamp, static_cast<std::uint32_t>(body.size()), block);
    if (!body.empty()) std::memcpy(reinterpret_cast<char*>(m + 1), body.data(), body.size());
    return m;
  }
  static void destroy(Message* m) noexcept {
    Block* block = m->block_;
    m->~Message();
    if (block != nullptr) {
      block->release();
    } else {
      std::free(m);
    }
  }

  std::atomic<std::uint32_t> refs_{1};
  std::uint32_t size_;
  Block* block_;  // null: a heap block of its own
  std::int64_t timestamp_;
  MessageId id_;
};

// Counted reference to a Message (intrusive).
class MessageRef {
 public:
  MessageRef() = default;
  // A message in a heap block of its own.
  static MessageRef create(const MessageId& id, std::int64_t timestamp, std::string_view body) {
    void* block = std::malloc(sizeof(Message) + body.size());
    if (block == nullptr) throw std::bad_alloc();
    return MessageRef(Message::place(block, id, timestamp, body, nullptr));
  }

  MessageRef(const MessageRef& o) noexcept : m_(o.m_) {
    if (m_) m_->refs_.fetch_add(1, std::memory_order_relaxed);
  }
  MessageRef(MessageRef&& o) noexcept : m_(std::exchange(o.m_, nullptr)) {}
  MessageRef& operator=(MessageRef o) noexcept {
    std::swap(m_, o.m_);
    return *this;
  }
  ~MessageRef() {
    if (m_ && m_->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) Message::destroy(m_);
  }

  // This message in a heap block of its own: for one kept long after the
  // messages it was made with (a deferred REQ), which would otherwise keep
  // their whole block.
  MessageRef alone() const {
    if (!m_ || m_->block_ == nullptr) return *this;
    return create(m_->id(), m_->timestamp(), m_->body());
  }

  const Message* operator->() const noexcept { return m_; }
  const Message& operator*() const noexcept { return *m_; }
  explicit operator bool() const noexcept { return m_ != nullptr; }

 private:
  friend class MessageBatch;
  explicit MessageRef(Message* m) noexcept : m_(m) {}
  Message* m_ = nullptr;
};

// Messages made one after another (an MPUB's, a disk refill's) put together
// in shared heap blocks: one malloc and one free per block instead of per
// message, and the consumer's thread frees memory that another thread
// allocated once per block (malloc and free were ~9% of delivery's CPU). A
// block is at most kBlockBytes; a larger message gets a block of its own.
// An in-flight message keeps at most one block alive; a deferred one is
// copied out (MessageRef::alone).
//
// One thread uses a batch; the messages it made go anywhere.
class MessageBatch {
 public:
  static constexpr std::size_t kBlockBytes = 16 * 1024;

  // `count` messages of `body_bytes` in all when known (an MPUB's: blocks
  // are sized to them; a PUB's one message is a block of its own), else
  // none (blocks grow from small: a refill may bring one message).
  MessageBatch() = default;
  MessageBatch(std::size_t count, std::size_t body_bytes)
      : expected_(body_bytes + count * footprint(0) + count * 7), alone_(count == 1) {}
  ~MessageBatch() {
    if (block_) block_->release();
  }
  MessageBatch(const MessageBatch&) = delete;
  MessageBatch& operator=(const MessageBatch&) = delete;

  MessageRef make(const MessageId& id, std::int64_t timestamp, std::string_view body) {
    const std::size_t need = footprint(body.size());
    if (alone_ || need > kBlockBytes / 4) return MessageRef::create(id, timestamp, body);
    if (block_ == nullptr || used_ + need > capacity_) next_block(need);
    block_->live.fetch_add(1, std::memory_order_relaxed);  // the batch's hold keeps it
    void* at = reinterpret_cast<char*>(block_) + used_;
    used_ += need;
    return MessageRef(Message::place(at, id, timestamp, body, block_));
  }

 private:
  static constexpr std::size_t kHeader = (sizeof(Message::Block) + 7) & ~std::size_t(7);
  static constexpr std::size_t footprint(std::size_t body) {
    return (sizeof(Message) + body + 7) & ~std::size_t(7);
  }
  void next_block(std::size_t need) {
    std::size_t want;
    if (expected_ > 0) {
      want = std::max(need, expected_);  // what is left of the bodies, with their headers
    } else {
      want = std::max(need, grow_);
      grow_ = std::min(2 * grow_, kBlockBytes);
    }
    want = std::min(std::max(want, need), kBlockBytes - kHeader) + kHeader;
    void* memory = std::malloc(want);
    if (memory == nullptr) throw std::bad_alloc();
    if (block_) block_->release();
    block_ = new (memory) Message::Block{{1}};
    used_ = kHeader;
    capacity_ = want;
    expected_ = expected_ > want - kHeader ? expected_ - (want - kHeader) : 0;
  }

  Message::Block* block_ = nullptr;
  std::size_t used_ = 0;
  std::size_t capacity_ = 0;
  std::size_t expected_ = 0;  // bytes still to come, when known
  std::size_t grow_ = 2048;   // the next block's size when they are not
  bool alone_ = false;
};

// A message as a channel holds it: the shared message plus this channel's
// delivery count.
// 16 bytes: a channel holds one per queued message, so millions of them
// (the sequence number shares attempts' 8-byte word).
struct QueuedMessage {
  MessageRef msg;
  std::uint16_t attempts = 0;
  // With --sync-publish: the read sequence number of the channel disk queue
  // record this message came from, committed once it is FIN'd; 0 = none.
  // 48 bits: records read since the queue was opened, 2^48 is never reached.
  std::uint64_t disk_seq : 48 = 0;
};
static_assert(sizeof(QueuedMessage) == 16);

// The disk-queue record of a message: its wire form (26-byte header + body).
inline std::string encode_record(const MessageHeader& header, std::string_view body) {
  std::string out;
  out.reserve(kMessageHeaderSize + body.size());
  append_message(out, header, body);
  return out;
}
inline std::string encode_record(const QueuedMessage& m) {
  return encode_record(MessageHeader{m.msg->timestamp(), m.attempts, m.msg->id()}, m.msg->body());
}

}  // namespace nsq::nsqd
