#include "chunk_splitter.h"

namespace nsq::tools::to_nsq {

std::optional<std::string> ChunkSplitter::next() {
  for (;;) {
    auto end = pending_.find(delimiter_, scanned_);
    if (end == std::string::npos) {
      scanned_ = pending_.size();
      return std::nullopt;
    }
    std::string message = pending_.substr(0, end);  // without its last byte, the delimiter
    pending_.erase(0, end + 1);
    scanned_ = 0;
    if (!message.empty()) return message;
  }
}

std::optional<std::string> ChunkSplitter::finish() {
  if (pending_.empty()) return std::nullopt;
  std::string message = pending_.substr(0, pending_.size() - 1);
  pending_.clear();
  scanned_ = 0;
  if (message.empty()) return std::nullopt;
  return message;
}

}  // namespace nsq::tools::to_nsq
