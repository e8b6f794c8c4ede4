#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "nsq/message.h"

namespace nsq::nsqd {

// A published message: id, timestamp and body in one heap block, immutable,
// shared by every channel of the topic (fan-out copies a pointer, never the
// body). Per-delivery state (attempts) lives beside the reference, in the
// channel.
class Message {
 public:
  const MessageId& id() const noexcept { return id_; }
  std::int64_t timestamp() const noexcept { return timestamp_; }
  std::string_view body() const noexcept {
    return {reinterpret_cast<const char*>(this + 1), size_};
  }

 private:
  friend class MessageRef;
  Message(const MessageId& id, std::int64_t timestamp, std::uint32_t size)
      : size_(size), timestamp_(timestamp), id_(id) {}

  std::atomic<std::uint32_t> refs_{1};
  std::uint32_t size_;
  std::int64_t timestamp_;
  MessageId id_;
};

// Counted reference to a Message (intrusive: one allocation per message).
class MessageRef {
 public:
  MessageRef() = default;
  static MessageRef create(const MessageId& id, std::int64_t timestamp, std::string_view body) {
    void* block = std::malloc(sizeof(Message) + body.size());
    if (block == nullptr) throw std::bad_alloc();
    auto* m = new (block) Message(id, timestamp, static_cast<std::uint32_t>(body.size()));
    if (!body.empty()) std::memcpy(reinterpret_cast<char*>(m + 1), body.data(), body.size());
    return MessageRef(m);
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
    if (m_ && m_->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      m_->~Message();
      std::free(m_);
    }
  }

  const Message* operator->() const noexcept { return m_; }
  const Message& operator*() const noexcept { return *m_; }
  explicit operator bool() const noexcept { return m_ != nullptr; }

 private:
  explicit MessageRef(Message* m) noexcept : m_(m) {}
  Message* m_ = nullptr;
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
