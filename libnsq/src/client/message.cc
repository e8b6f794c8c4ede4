#include "nsq/client/message.h"

namespace nsq::client {

Message::Message(MessageHeader header, std::string body, std::string nsqd_address,
                 std::weak_ptr<MessageResponder> responder)
    : state_(std::make_shared<State>()) {
  state_->header = header;
  state_->body = std::move(body);
  state_->nsqd_address = std::move(nsqd_address);
  state_->responder = std::move(responder);
}

bool Message::claim() const { return state_ && !state_->responded.exchange(true); }

void Message::finish() const {
  if (!claim()) return;
  if (auto responder = state_->responder.lock()) responder->on_finish(*this);
}

void Message::requeue(std::chrono::milliseconds delay) const {
  if (!claim()) return;
  if (auto responder = state_->responder.lock()) responder->on_requeue(*this, delay, true);
}

void Message::requeue_without_backoff(std::chrono::milliseconds delay) const {
  if (!claim()) return;
  if (auto responder = state_->responder.lock()) responder->on_requeue(*this, delay, false);
}

void Message::touch() const {
  if (!state_ || state_->responded.load()) return;
  if (auto responder = state_->responder.lock()) responder->on_touch(*this);
}

}  // namespace nsq::client
