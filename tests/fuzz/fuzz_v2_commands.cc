// nsqd's V2 command stream as client_conn.cc frames it: the magic, then
// lines split by protocol::scan_line/split_command, with the body-carrying
// commands (PUB, DPUB, MPUB, IDENTIFY, AUTH) reading a 4-byte size and that
// many bytes, and MPUB/IDENTIFY bodies going through their real parsers.
// The input arrives in chunks (the first byte picks the chunk size), so the
// need_more path is exercised as it is over a socket.
// Invariants: a scan consumes a whole line ('\n' last, within the limit) or
// nothing, need_more/too_long agree with where the '\n' is, the name and
// params hold no space, and name + params joined with ' ' give the line back.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "nsq/identify.h"
#include "nsq/mpub.h"
#include "protocol/command_line.h"

namespace {

namespace protocol = nsq::nsqd::protocol;

// Small limits, so that oversized lines and bodies are reachable.
constexpr std::size_t kMaxLine = 64;
constexpr std::int32_t kMaxBody = 512;
constexpr std::int32_t kMaxMsg = 128;

void check_line(std::string_view buffered, const protocol::LineScan& scan) {
  if (scan.status != protocol::LineStatus::line) {
    if (scan.consumed != 0 || !scan.line.empty()) std::abort();
    bool has_nl = buffered.substr(0, kMaxLine).find('\n') != std::string_view::npos;
    if (has_nl) std::abort();
    bool too_long = buffered.size() >= kMaxLine;
    if (too_long != (scan.status == protocol::LineStatus::too_long)) std::abort();
    return;
  }
  if (scan.consumed == 0 || scan.consumed > buffered.size() || scan.consumed > kMaxLine) {
    std::abort();
  }
  if (buffered[scan.consumed - 1] != '\n') std::abort();
  if (scan.line.data() != buffered.data()) std::abort();
  if (scan.line.size() + 1 != scan.consumed && scan.line.size() + 2 != scan.consumed) std::abort();
  if (scan.line.find('\n') != std::string_view::npos) std::abort();
}

void check_split(std::string_view line, const protocol::CommandLine& cmd) {
  if (cmd.name.find(' ') != std::string_view::npos) std::abort();
  std::string joined(cmd.name);
  for (std::string_view p : cmd.params) {
    if (p.find(' ') != std::string_view::npos) std::abort();
    if (p.data() < line.data() || p.data() + p.size() > line.data() + line.size()) std::abort();
    joined += ' ';
    joined += p;
  }
  if (joined != line) std::abort();
}

std::int32_t get_i32be(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return static_cast<std::int32_t>(v);
}

void check_body(std::string_view name, std::string_view body) {
  if (name == "MPUB") {
    auto messages = nsq::parse_mpub_body(body, nsq::MpubLimits{kMaxMsg, kMaxBody});
    if (messages) {
      for (std::string_view m : *messages) {
        if (m.empty() || m.size() > static_cast<std::size_t>(kMaxMsg)) std::abort();
      }
    } else if (!messages.error().fatal) {
      std::abort();
    }
  } else if (name == "IDENTIFY") {
    auto negotiated = nsq::negotiate_identify_json(body, nsq::IdentifyLimits{});
    if (!negotiated && negotiated.error().code.empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 32;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t arrived = 0;  // bytes of input "read from the socket" so far
  std::size_t start = 0;    // the read buffer is input[start, arrived)
  // (The magic is checked by the connection before any line; the fuzzer
  // starts at the first command, as a client that sent "  V2" would.)
  protocol::CommandLine cmd;
  for (;;) {
    std::string_view buffered = input.substr(start, arrived - start);
    protocol::LineScan scan = protocol::scan_line(buffered, kMaxLine);
    check_line(buffered, scan);
    if (scan.status == protocol::LineStatus::too_long) return 0;
    if (scan.status == protocol::LineStatus::need_more) {
      if (arrived == input.size()) return 0;  // EOF
      arrived = std::min(input.size(), arrived + chunk);
      continue;
    }
    std::string line(scan.line);  // as the connection copies it
    start += scan.consumed;
    protocol::split_command(line, cmd);
    check_split(line, cmd);
    const std::string_view name = cmd.name;
    if (name != "PUB" && name != "DPUB" && name != "MPUB" && name != "IDENTIFY" && name != "AUTH") {
      continue;
    }
    // The body: a size then its bytes, read whole (fill waits for them).
    arrived = std::max(arrived, std::min(input.size(), start + 4));
    if (arrived - start < 4) return 0;
    std::int32_t body_size = get_i32be(input.data() + start);
    start += 4;
    const std::int32_t limit = (name == "PUB" || name == "DPUB") ? kMaxMsg : kMaxBody;
    if (body_size <= 0 || body_size > limit) return 0;  // fatal: the connection closes
    arrived =
        std::max(arrived, std::min(input.size(), start + static_cast<std::size_t>(body_size)));
    if (arrived - start < static_cast<std::size_t>(body_size)) return 0;
    check_body(name, input.substr(start, static_cast<std::size_t>(body_size)));
    start += static_cast<std::size_t>(body_size);
  }
}
