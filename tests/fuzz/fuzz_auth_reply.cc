// The auth server's JSON reply (auth::parse_reply) and the
// --auth-http-address values (auth::parse_address). The first byte picks
// which. Invariants: an accepted reply expires after `now` (ttl > 0) and its
// regexes answer allows() for any topic/channel; an accepted address has a
// host, a port in 1..65535 and a path starting with '/', and prints back to
// an address that parses to the same endpoint.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "protocol/auth.h"

namespace {

namespace auth = nsq::nsqd::auth;

void fuzz_reply(std::string_view body) {
  const auto now = std::chrono::steady_clock::time_point(std::chrono::hours(1));
  auto state = auth::parse_reply(body, now);
  if (!state) {
    if (state.error().empty()) std::abort();
    return;
  }
  if (state->expired(now)) std::abort();
  // Names as nsqd would ask about (valid names are at most 64 bytes).
  for (std::string_view topic : {"t", "orders", "a.b_c-d#ephemeral"}) {
    (void)state->allows(topic, "");
    (void)state->allows(topic, "ch");
  }
  // Nothing listed, nothing allowed.
  if (state->authorizations.empty() && state->allows("t", "")) std::abort();
}

void fuzz_address(std::string_view text) {
  const std::string address(text);
  auto ep = auth::parse_address(address);
  if (!ep) {
    if (ep.error().empty()) std::abort();
    return;
  }
  if (ep->host.empty() || ep->port == 0 || ep->path.empty() || ep->path[0] != '/') std::abort();
  // Print it back as a URL; a host with a colon needs brackets, and one with
  // brackets or a slash of its own cannot be printed back unambiguously.
  if (ep->host.find_first_of("[]/") != std::string::npos) return;
  std::string host = ep->host.find(':') == std::string::npos ? ep->host : "[" + ep->host + "]";
  std::string url = std::string(ep->https ? "https" : "http") + "://" + host + ":" +
                    std::to_string(ep->port) + ep->path;
  auto again = auth::parse_address(url);
  if (!again || again->https != ep->https || again->host != ep->host || again->port != ep->port ||
      again->path != ep->path) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    fuzz_address(rest);
  } else {
    fuzz_reply(rest);
  }
  return 0;
}
