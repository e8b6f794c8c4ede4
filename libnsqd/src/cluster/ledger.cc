#include "cluster/ledger.h"

#include <array>

#include "cluster/log_record.h"
#include "nsq/id_generator.h"

namespace nsq::nsqd::cluster {

std::uint64_t record_size(std::size_t body_size) {
  return kLogRecordHeader + kMessageHeaderSize + body_size;
}

MessageId id_at(std::uint64_t id_base, std::uint64_t offset) {
  return format_message_id(id_base + offset);
}

namespace {

// Hex digit values, 0xff for anything else: a table, because every message
// handed, finished or dropped has its id read back (a branch per character
// showed in profiles of replicated publishing).
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(0xff);
  for (int c = '0'; c <= '9'; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'a' + 10);
  return t;
}();

}  // namespace

std::optional<std::uint64_t> offset_of(std::uint64_t id_base, const MessageId& id) {
  std::uint64_t value = 0;
  std::uint8_t invalid = 0;
  for (char c : id) {
    const std::uint8_t digit = kHexValue[static_cast<unsigned char>(c)];
    invalid |= digit & 0xf0;
    value = value << 4 | (digit & 0x0f);
  }
  if (invalid != 0 || value < id_base) return std::nullopt;
  return value - id_base;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> Ledger::extent_locked(
    const Message& m) const {
  auto offset = offset_of(id_base_, m.id());
  if (!offset) return std::nullopt;
  return std::pair(*offset, *offset + record_size(m.body().size()));
}

void Ledger::handed(std::span<const MessageRef> messages) {
  std::lock_guard lock(mu_);
  // The messages of one publish are adjacent records: one range each run.
  std::uint64_t begin = 0, end = 0;
  for (const MessageRef& m : messages) {
    auto e = extent_locked(*m);
    if (!e) continue;
    if (e->first != end || begin == end) {
      progress_.handed.add(begin, end);
      begin = e->first;
    }
    end = e->second;
  }
  progress_.handed.add(begin, end);
  ++version_;
}

void Ledger::dropped(std::span<const MessageRef> messages) {
  std::lock_guard lock(mu_);
  for (const MessageRef& m : messages) {
    if (auto e = extent_locked(*m)) skip_locked(e->first, e->second);
  }
  ++version_;
}

void Ledger::finished(const std::string& channel, const Message& message) {
  std::lock_guard lock(mu_);
  auto it = progress_.channels.find(channel);
  auto e = extent_locked(message);
  if (it == progress_.channels.end() || !e) return;
  it->second.finished.add(e->first, e->second);
  ++version_;
}

void Ledger::channel_added(const std::string& channel, bool paused) {
  std::lock_guard lock(mu_);
  progress_.channels[channel] = ChannelProgress{progress_.handed, paused};
  ++version_;
}

void Ledger::channel_emptied(const std::string& channel) {
  std::lock_guard lock(mu_);
  auto it = progress_.channels.find(channel);
  if (it == progress_.channels.end()) return;
  it->second.finished = progress_.handed;
  ++version_;
}

void Ledger::channel_removed(const std::string& channel) {
  std::lock_guard lock(mu_);
  if (progress_.channels.erase(channel)) ++version_;
}

void Ledger::channel_paused(const std::string& channel, bool paused) {
  std::lock_guard lock(mu_);
  auto it = progress_.channels.find(channel);
  if (it == progress_.channels.end() || it->second.paused == paused) return;
  it->second.paused = paused;
  ++version_;
}

bool Ledger::has_channel(const std::string& channel) const {
  std::lock_guard lock(mu_);
  return progress_.channels.count(channel) != 0;
}

void Ledger::skip(std::uint64_t begin, std::uint64_t end) {
  std::lock_guard lock(mu_);
  skip_locked(begin, end);
  ++version_;
}

void Ledger::skip_locked(std::uint64_t begin, std::uint64_t end) {
  progress_.handed.add(begin, end);
  for (auto& [name, c] : progress_.channels) c.finished.add(begin, end);
}

TopicProgress Ledger::progress() const {
  std::lock_guard lock(mu_);
  return progress_;
}

std::uint64_t Ledger::version() const {
  std::lock_guard lock(mu_);
  return version_;
}

void Ledger::replace(TopicProgress progress) {
  std::lock_guard lock(mu_);
  progress_ = std::move(progress);
  ++version_;
}

bool Ledger::clip(std::uint64_t end) {
  std::lock_guard lock(mu_);
  if (!progress_.clip(end)) return false;
  ++version_;
  return true;
}

void Ledger::set_id_base(std::uint64_t id_base) {
  std::lock_guard lock(mu_);
  id_base_ = id_base;
}

std::uint64_t Ledger::id_base() const {
  std::lock_guard lock(mu_);
  return id_base_;
}

}  // namespace nsq::nsqd::cluster
