#pragma once
// SCRATCH: hop timing, not for commit.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace nsq::nsqd::cluster::hop {
struct Event {
  const char* what;
  std::uint64_t key;
  std::int64_t ns;
  int tag;
};
struct Buffer {
  std::mutex mu;
  std::vector<Event> events;
  bool on = std::getenv("NSQ_HOP_TRACE") != nullptr;
  Buffer() { events.reserve(1 << 22); }
  ~Buffer() {
    if (!on) return;
    std::string path = std::string(std::getenv("NSQ_HOP_TRACE")) + "." + std::to_string(::getpid());
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return;
    for (auto& e : events)
      std::fprintf(f, "%s %llu %lld %d\n", e.what, (unsigned long long)e.key, (long long)e.ns,
                   e.tag);
    std::fclose(f);
  }
};
inline Buffer& buffer() {
  static Buffer b;
  return b;
}
inline void trace(const char* what, std::uint64_t key, int tag = 0) {
  auto& b = buffer();
  if (!b.on) return;
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now().time_since_epoch())
                .count();
  std::lock_guard l(b.mu);
  if (b.events.size() < (1u << 22)) b.events.push_back({what, key, ns, tag});
}
}  // namespace nsq::nsqd::cluster::hop
