#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nsq/message.h"

namespace nsq::client {

class Message;

// Where a message's answer goes: the connection that delivered it. Kept
// behind an interface so Message stays free of I/O types.
class MessageResponder {
 public:
  virtual ~MessageResponder() = default;
  virtual void on_finish(const Message& message) = 0;
  // delay < 0: the consumer's default delay (default_requeue_delay x attempts).
  virtual void on_requeue(const Message& message, std::chrono::milliseconds delay,
                          bool backoff) = 0;
  virtual void on_touch(const Message& message) = 0;
};

// A delivered message: a cheap copyable handle, answerable once (FIN or
// REQ) from any thread; TOUCH any number of times before that. Answers
// after the connection closed are dropped (nsqd requeues the message when
// it times out, so nothing is lost).
//
// @par Thread Safety: all members may be called from any thread.
class Message {
 public:
  Message() = default;
  Message(MessageHeader header, std::string body, std::string nsqd_address,
          std::weak_ptr<MessageResponder> responder);

  const MessageId& id() const { return state_->header.id; }
  std::string_view id_view() const { return to_string_view(state_->header.id); }
  int64_t timestamp_ns() const { return state_->header.timestamp_ns; }
  uint16_t attempts() const { return state_->header.attempts; }
  const std::string& body() const { return state_->body; }
  // "host:port" of the nsqd that delivered it.
  const std::string& nsqd_address() const { return state_->nsqd_address; }

  // FIN. No-op if already answered.
  void finish() const;
  // REQ with backoff; delay < 0 means the default (default_requeue_delay x attempts).
  void requeue(std::chrono::milliseconds delay = std::chrono::milliseconds(-1)) const;
  void requeue_without_backoff(std::chrono::milliseconds delay) const;
  void touch() const;

  // The handler answers itself (later, maybe from another thread); the
  // consumer then does not FIN/REQ on the handler's return.
  void disable_auto_response() const { state_->auto_response.store(false); }
  bool auto_response_enabled() const { return state_->auto_response.load(); }
  bool has_responded() const { return state_->responded.load(); }

  explicit operator bool() const { return state_ != nullptr; }

 private:
  struct State {
    MessageHeader header;
    std::string body;
    std::string nsqd_address;
    std::weak_ptr<MessageResponder> responder;
    std::atomic<bool> auto_response{true};
    std::atomic<bool> responded{false};
  };

  // Claims the single answer; false if somebody answered before.
  bool claim() const;

  std::shared_ptr<State> state_;
};

}  // namespace nsq::client
