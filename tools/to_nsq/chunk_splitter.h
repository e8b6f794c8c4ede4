#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nsq::tools::to_nsq {

// Splits a byte stream into messages as to_nsq v1.3.0 does: a chunk ends
// with the delimiter (included), and the chunk's last byte is dropped as
// "the delimiter" - also for a final chunk at EOF that has none (so its
// last real byte is lost: the Go tool's quirk, kept for compatibility).
// Empty results are skipped.
class ChunkSplitter {
 public:
  explicit ChunkSplitter(char delimiter) : delimiter_(delimiter) {}

  void put(std::string_view bytes) { pending_.append(bytes); }
  // The next message, if a whole chunk is buffered.
  std::optional<std::string> next();
  // After EOF: the message made of the rest, if any.
  std::optional<std::string> finish();

 private:
  char delimiter_;
  std::string pending_;
  std::size_t scanned_ = 0;  // bytes of pending_ known to hold no delimiter
};

}  // namespace nsq::tools::to_nsq
