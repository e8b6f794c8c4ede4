// nsqd's /stats JSON as nsq_stat and nsqadmin read it: parsing any bytes
// must never crash, and what nsqd's writer writes must parse back to the
// same model (the writer and the parser walk one key list).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "nsq/stats/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto snapshot = nsq::stats::parse_stats_json(input);
  if (!snapshot) {
    if (snapshot.error().rfind("invalid JSON: ", 0) != 0) std::abort();
    return 0;
  }
  // The first write settles what a model cannot say twice: invalid UTF-8
  // becomes U+FFFD, include_clients without a channel to show it is lost.
  const auto written = nsq::stats::parse_stats_json(nsq::stats::write_stats_json(*snapshot));
  if (!written) std::abort();
  const auto again = nsq::stats::parse_stats_json(nsq::stats::write_stats_json(*written));
  if (!again || *again != *written) std::abort();
  return 0;
}
