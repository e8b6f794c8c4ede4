#include "upgrades.h"

#include "commands.h"
#include "handshake.h"

namespace nsq::bench {

bool json_true(std::string_view json, std::string_view key) {
  std::string needle = "\"";
  needle += key;
  needle += "\":true";
  return json.find(needle) != std::string_view::npos;
}

namespace {

// Reads the OK that follows an upgrade (no request to send).
Expected<void> read_ok(Socket& socket, FrameBuffer& in, std::string_view what) {
  auto ok = request(socket, in, "", what);
  if (!ok) return tl::unexpected(ok.error());
  if (*ok != kOk)
    return tl::unexpected(std::string(what) + ": unexpected response \"" + *ok + "\"");
  return {};
}

}  // namespace

Expected<void> apply_upgrades(Socket& socket, FrameBuffer& in, std::string_view identify) {
  if (json_true(identify, "tls_v1")) {
    if (auto r = socket.start_tls(); !r) return r;
    if (auto r = read_ok(socket, in, "TLS"); !r) return r;
  }
  const bool snappy = json_true(identify, "snappy");
  if (snappy || json_true(identify, "deflate")) {
    std::string early = in.take_unparsed();
    auto level = json_int_field(identify, "deflate_level");
    auto r = snappy ? socket.start_snappy(early)
                    : socket.start_deflate(static_cast<int>(level.value_or(6)), early);
    if (!r) return r;
    if (auto ok = read_ok(socket, in, snappy ? "snappy" : "deflate"); !ok) return ok;
  }
  return {};
}

}  // namespace nsq::bench
