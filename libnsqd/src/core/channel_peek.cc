// Peek: copies of up to n messages of a channel in one state, without
// consuming or reordering them. Memory under the lock; the disk queue's
// unread records after it, without the lock, read on their own descriptors
// (DiskQueue::peek_each): a snapshot that may miss a message moving from disk
// to memory at that instant.
#include <algorithm>
#include <queue>

#include "core/channel.h"
#include "core/heap_access.h"
#include "core/peek.h"
#include "nsq/base64.h"
#include "nsq/json/writer.h"
#include "nsq/message.h"

namespace nsq::nsqd {
namespace {

PeekedMessage copy_of(const QueuedMessage& m) {
  return PeekedMessage{m.msg->id(), m.msg->timestamp(), m.attempts, std::string(m.msg->body()),
                       std::nullopt};
}

std::int64_t unix_nanos_at(Clock::time_point when) {
  return unix_nanos() +
         std::chrono::duration_cast<std::chrono::nanoseconds>(when - Clock::now()).count();
}

}  // namespace

std::vector<PeekedMessage> Channel::peek(PeekState state, std::size_t n) const {
  n = std::min(n, kMaxPeek);
  std::vector<PeekedMessage> out;
  bool read_disk = false;
  std::vector<PeekedMessage> from_memory;
  {
    std::lock_guard lock(mu_);
    switch (state) {
      case PeekState::queued:
        for (const auto& [id, slot] : clients_) {
          for (const auto& m : slot.handoff) {
            if (out.size() < n) out.push_back(copy_of(m));
          }
        }
        for (const auto& m : from_disk_) {
          if (out.size() >= n) break;
          out.push_back(copy_of(m));
        }
        for (const auto& m : memory_) {
          if (out.size() + from_memory.size() >= n) break;
          from_memory.push_back(copy_of(m));
        }
        read_disk = backend_ != nullptr;
        break;
      case PeekState::in_flight:
        in_flight_.visit_all_until([&](const MessageId&, const InFlight& f) {
          PeekedMessage p = copy_of(f.msg);
          p.due = unix_nanos_at(f.deadline);
          out.push_back(std::move(p));
          return out.size() < n;
        });
        std::sort(out.begin(), out.end(),
                  [](const auto& a, const auto& b) { return *a.due < *b.due; });
        break;
      case PeekState::deferred: {
        // The earliest n of the heap, best first: O(n log n), whatever its size.
        const auto& heap = heap_array(deferred_);
        auto later = [&](std::size_t a, std::size_t b) { return heap[a].due > heap[b].due; };
        std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> next(later);
        if (!heap.empty()) next.push(0);
        while (!next.empty() && out.size() < n) {
          const std::size_t i = next.top();
          next.pop();
          PeekedMessage p = copy_of(heap[i].msg);
          p.due = unix_nanos_at(heap[i].due);
          out.push_back(std::move(p));
          for (std::size_t child : {2 * i + 1, 2 * i + 2}) {
            if (child < heap.size()) next.push(child);
          }
        }
        break;
      }
    }
  }
  // Queued: in the order take() hands them out: read ahead from disk, memory,
  // then what the disk queue still holds.
  for (auto& m : from_memory) out.push_back(std::move(m));
  if (read_disk && out.size() < n) {
    backend_->peek_each(n - out.size(), 4 * 1024 * 1024, [&](std::string_view data) {
      if (auto m = decode_message(data)) {
        out.push_back(PeekedMessage{m->header.id, m->header.timestamp_ns, m->header.attempts,
                                    std::string(m->body), std::nullopt});
      }
    });
  }
  return out;
}

std::string peek_json(const std::vector<PeekedMessage>& messages) {
  std::string out = "{\"messages\":[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const PeekedMessage& m = messages[i];
    if (i > 0) out += ',';
    out += "{\"id\":" + json::quote(std::string_view(m.id.data(), m.id.size()));
    out += ",\"timestamp\":" + std::to_string(m.timestamp);
    out += ",\"attempts\":" + std::to_string(m.attempts);
    out += ",\"body\":" + json::quote(base64::encode(m.body));
    if (m.due) out += ",\"due\":" + std::to_string(*m.due);
    out += '}';
  }
  return out + "]}";
}

}  // namespace nsq::nsqd
