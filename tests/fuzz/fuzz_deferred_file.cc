// The side file of deferred due times (core/deferred_file.h), read from a
// data directory that may hold anything. Invariants: what decodes encodes
// to text that decodes to the same entries; no negative due time.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/deferred_file.h"

namespace df = nsq::nsqd::deferred_file;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto entries = df::decode(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto& e : entries) {
    if (e.due_unix_ms < 0) std::abort();
  }
  const auto again = df::decode(df::encode(entries));
  if (again.size() != entries.size()) std::abort();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (again[i].id != entries[i].id || again[i].due_unix_ms != entries[i].due_unix_ms) {
      std::abort();
    }
  }
  return 0;
}
