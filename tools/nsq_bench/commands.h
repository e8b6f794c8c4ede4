#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The client side of the commands nsq_bench sends, as ready-to-write bytes.
namespace nsq::bench {

inline constexpr std::string_view kMagic = "  V2";
inline constexpr std::string_view kNop = "NOP\n";
inline constexpr std::string_view kCls = "CLS\n";
inline constexpr std::string_view kHeartbeat = "_heartbeat_";
inline constexpr std::string_view kOk = "OK";
inline constexpr std::string_view kCloseWait = "CLOSE_WAIT";
// Bytes of the send timestamp at the start of each body with --latency.
inline constexpr std::size_t kStampSize = 8;

// One publish request, built once and re-sent for the whole run: PUB for a
// batch of one, else MPUB. Bodies are 'a' bytes (as NSQ's bench tools send);
// stamp() overwrites the first 8 bytes of every body with a big-endian
// CLOCK_REALTIME timestamp so readers can measure publish->delivery latency.
class PublishBatch {
 public:
  // count >= 1, size >= 1 (>= kStampSize for stamp()).
  PublishBatch(std::string_view topic, int count, int size);

  void stamp(int64_t realtime_ns);

  std::string_view bytes() const noexcept { return bytes_; }
  int count() const noexcept { return count_; }
  // Offsets of the bodies in bytes(), for tests.
  const std::vector<std::size_t>& body_offsets() const noexcept { return body_offsets_; }

 private:
  std::string bytes_;
  std::vector<std::size_t> body_offsets_;
  int count_;
  int size_;
};

// What a reader says about itself. Zero values keep the server defaults.
struct IdentifySettings {
  std::string client_id = "nsq_bench";
  std::string hostname;
  std::string user_agent = "nsq_bench/1.3.0";
  bool feature_negotiation = true;
  int64_t output_buffer_size = 0;
  int64_t output_buffer_timeout_ms = 0;
  // Upgrades to ask for (the server may refuse): see upgrades.h.
  bool tls_v1 = false;
  bool snappy = false;
  bool deflate = false;
  int deflate_level = 0;
};

std::string identify_json(const IdentifySettings& settings);
// "IDENTIFY\n" + [size] + body.
std::string identify_command(std::string_view json);
std::string sub_command(std::string_view topic, std::string_view channel);
std::string rdy_command(int64_t count);
// Appends "FIN <id>\n"; the reader batches these between socket writes.
void append_fin(std::string& out, std::string_view id);

// An integer member of a flat JSON object such as the IDENTIFY reply
// (`"max_rdy_count":2500`); nullopt if absent or not an integer. Enough for
// the one field nsq_bench reads, without a JSON library.
std::optional<int64_t> json_int_field(std::string_view json, std::string_view key);

}  // namespace nsq::bench
