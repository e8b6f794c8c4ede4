// What the C++ client parses from outside: nsqlookupd's /lookup answer, a
// lookupd address, and --consumer-opt/--producer-opt values. The first byte
// picks the parser. Never crashes; what is accepted is well formed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lookupd_query.h"
#include "nsq/client/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto producers = nsq::client::parse_lookup_producers(input);
      if (producers) {
        for (const auto& address : *producers)
          if (address.rfind(':') == std::string::npos) std::abort();
      }
      break;
    }
    case 1: {
      auto endpoint = nsq::client::parse_lookupd_address(input);
      if (endpoint && (endpoint->port == 0 || endpoint->path.empty() || endpoint->path[0] != '/'))
        std::abort();
      break;
    }
    default: {
      nsq::client::Config config;
      auto applied = nsq::client::apply_option_flag(config, input);
      if (applied &&
          (config.max_in_flight < 0 || config.deflate_level < 1 || config.deflate_level > 9 ||
           config.sample_rate < 0 || config.sample_rate > 99 || config.lookupd_poll_jitter < 0 ||
           config.lookupd_poll_jitter > 1))
        std::abort();
      (void)config.validate();
      break;
    }
  }
  return 0;
}
