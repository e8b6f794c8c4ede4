#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "cluster/progress.h"
#include "core/delivery_ledger.h"

namespace nsq::nsqd::cluster {

// The size of a message's record in the replica log (log_record.h).
std::uint64_t record_size(std::size_t body_size);

// The message id of the record at `offset` of a topic whose ids start at
// `id_base`, and back: ids are offsets, so a FIN names the record it
// finishes without any table (docs/replication.md, "Message ids").
MessageId id_at(std::uint64_t id_base, std::uint64_t offset);
// nullopt for an id this topic's log did not give (not 16 hex digits, or
// below the base).
std::optional<std::uint64_t> offset_of(std::uint64_t id_base, const MessageId& id);

// A replicated topic's DeliveryLedger: its TopicProgress behind a mutex,
// with a version that changes with it. The Replicator owns one per topic:
// on the leader the broker's topic writes it; on a follower what the leader
// sent replaces it.
class Ledger final : public DeliveryLedger {
 public:
  Ledger(std::uint64_t id_base, TopicProgress progress)
      : id_base_(id_base), progress_(std::move(progress)) {}

  void handed(std::span<const MessageRef> messages) override;
  void dropped(std::span<const MessageRef> messages) override;
  void finished(const std::string& channel, const Message& message) override;
  void channel_added(const std::string& channel, bool paused) override;
  void channel_emptied(const std::string& channel) override;
  void channel_removed(const std::string& channel) override;
  void channel_paused(const std::string& channel, bool paused) override;
  bool has_channel(const std::string& channel) const override;

  // Records that no channel will see [begin, end): a publish that failed
  // after its records were appended (its producer got an error).
  void skip(std::uint64_t begin, std::uint64_t end);

  TopicProgress progress() const;
  std::uint64_t version() const;
  void replace(TopicProgress progress);
  // TopicProgress::clip.
  bool clip(std::uint64_t end);
  void set_id_base(std::uint64_t id_base);
  std::uint64_t id_base() const;

 private:
  std::optional<std::pair<std::uint64_t, std::uint64_t>> extent_locked(const Message& m) const;
  void skip_locked(std::uint64_t begin, std::uint64_t end);

  mutable std::mutex mu_;
  std::uint64_t id_base_;      // guarded by mu_
  TopicProgress progress_;     // guarded by mu_
  std::uint64_t version_ = 0;  // guarded by mu_
};

}  // namespace nsq::nsqd::cluster
