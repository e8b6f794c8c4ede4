// nsqlookupd TCP protocol V1 (the sans-I/O V1Session over a real
// RegistrationDb): two peers share the DB, the input is split between them in
// chunks of varying size. Never crash; every response is well framed and is
// OK, a JSON object or an E_ error; nothing follows a fatal error; once both
// connections are gone no producer is left in the DB.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "registration_db.h"
#include "v1_session.h"

namespace {

using nsq::lookupd::RegistrationDb;
using nsq::lookupd::ServerIdentity;
using nsq::lookupd::Time;
using nsq::lookupd::V1Session;

void check_responses(std::string_view out) {
  while (!out.empty()) {
    if (out.size() < 4) std::abort();
    const auto b = [&](std::size_t k) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(out[k]));
    };
    const std::size_t n = b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
    if (out.size() < 4 + n) std::abort();
    const std::string_view data = out.substr(4, n);
    if (data != "OK" && !data.starts_with("E_") &&
        !(data.starts_with("{") && data.ends_with("}"))) {
      std::abort();
    }
    out.remove_prefix(4 + n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const unsigned mode = static_cast<unsigned char>(input[0]);
  input.remove_prefix(1);

  RegistrationDb db;
  const ServerIdentity identity{"lookupd", "host", 4160, 4161};
  {
    V1Session a(db, identity, "10.0.0.1:1", {});
    V1Session b(db, identity, "10.0.0.2:2", {});
    Time now{};
    std::string out;
    // Mostly valid connections: the magic comes for free unless mode says not.
    if (mode & 1) {
      a.put("  V1", now, out);
      b.put("  V1", now, out);
    }
    const std::size_t chunk = 1 + (mode >> 1);
    bool to_a = true;
    while (!input.empty()) {
      const std::string_view part = input.substr(0, chunk);
      input.remove_prefix(part.size());
      V1Session& s = to_a ? a : b;
      to_a = !to_a;
      const bool was_closed = s.closed();
      out.clear();
      s.put(part, now, out);
      if (was_closed && !out.empty()) std::abort();
      check_responses(out);
      now += std::chrono::seconds(1);
    }
    out.clear();
    a.on_eof(out);
    b.on_eof(out);
    check_responses(out);
  }
  if (!db.find_producers("client", "", "").empty()) std::abort();
  if (!db.find_producers("topic", "*", "").empty()) std::abort();
  if (!db.find_producers("channel", "*", "*").empty()) std::abort();
  return 0;
}
