// Dead letters and message TTL (issue 21; docs/operations.md): a message past
// its TTL is not delivered, and one that timed out or was REQ'd after
// max_attempts attempts is not delivered again. Either goes to the channel's
// dead-letter topic (body unchanged, a new message there) or, without one,
// is dropped; both are counted.
#include "core/channel.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace nsq::nsqd {

void Channel::set_settings(QueueSettings settings) {
  std::lock_guard lock(mu_);
  settings_ = std::move(settings);
}

QueueSettings Channel::settings() const {
  std::lock_guard lock(mu_);
  return settings_;
}

void Channel::set_topic_ttl(std::chrono::milliseconds ttl) {
  std::lock_guard lock(mu_);
  topic_ttl_ = ttl;
}

// mu_ held. The shorter of the channel's and the topic's TTL; 0 = none.
std::chrono::nanoseconds Channel::ttl_locked() const {
  const auto mine = settings_.message_ttl;
  if (mine.count() == 0) return topic_ttl_;
  if (topic_ttl_.count() == 0) return mine;
  return std::min(mine, topic_ttl_);
}

// mu_ held. Out of attempts: it timed out or was REQ'd for the last time.
bool Channel::exhausted_locked(const QueuedMessage& m) const {
  return settings_.max_attempts > 0 && m.attempts >= settings_.max_attempts;
}

// mu_ held. `m` leaves the channel without a FIN.
void Channel::leave_locked(QueuedMessage m, bool expired, DeadLetters& out) {
  if (expired) ++expired_count_;
  if (ledger_) ledger_->finished(name_, *m.msg);
  if (settings_.dead_letter_topic.empty()) {
    ++discarded_count_;
    release_locked(m);
    return;
  }
  ++dead_letter_count_;
  out.topic = settings_.dead_letter_topic;
  out.messages.push_back(std::move(m));
}

// No lock held: the dead-letter topic may be this channel's own topic.
void Channel::send_dead_letters(DeadLetters letters) {
  if (letters.messages.empty() || !ctx_.dead_letter) return;
  std::vector<std::string> bodies;
  bodies.reserve(letters.messages.size());
  for (const auto& m : letters.messages) bodies.emplace_back(m.msg->body());
  std::weak_ptr<Channel> weak = weak_from_this();
  const std::size_t n = letters.messages.size();
  auto keep = durable_ ? std::move(letters.messages) : std::vector<QueuedMessage>{};
  ctx_.dead_letter(letters.topic, std::move(bodies),
                   [weak, n, topic = letters.topic, keep = std::move(keep)](std::error_code ec) {
                     auto self = weak.lock();
                     if (!self) return;
                     std::lock_guard lock(self->mu_);
                     if (ec) {
                       // Durable: their records stay uncommitted and come back.
                       self->ctx_.log.error(
                           "TOPIC({}): CHANNEL({}) failed to send {} messages to the dead-letter "
                           "topic {} - {}",
                           self->topic_name_, self->name_, n, topic, ec.message());
                       return;
                     }
                     for (const auto& m : keep) self->release_locked(m);
                   });
}

}  // namespace nsq::nsqd
