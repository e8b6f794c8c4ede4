#include "ok_responder.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "commands.h"

namespace nsq::bench {
namespace {

// [size 6][type response][OK]
constexpr std::string_view kOkFrame{"\0\0\0\x06\0\0\0\0OK", 10};

bool has_body(std::string_view line) {
  return line.starts_with("PUB ") || line.starts_with("MPUB ") || line.starts_with("DPUB ");
}

uint32_t big_endian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{u[0]} << 24 | uint32_t{u[1]} << 16 | uint32_t{u[2]} << 8 | uint32_t{u[3]};
}

// Bytes of the first complete command in `in` and whether it is answered;
// 0 while incomplete.
std::size_t complete_command(std::string_view in, bool& answer) {
  const std::size_t eol = in.find('\n');
  if (eol == std::string_view::npos) return 0;
  const std::string_view line = in.substr(0, eol);
  answer = has_body(line);
  if (!answer) return eol + 1;  // NOP and the like: nothing to say
  if (in.size() < eol + 5) return 0;
  const std::size_t total = eol + 5 + big_endian32(in.data() + eol + 1);
  return in.size() < total ? 0 : total;
}

}  // namespace

OkResponder::~OkResponder() { stop(); }

Expected<std::string> OkResponder::start() {
  auto listener = listen_loopback();
  if (!listener) return tl::unexpected(listener.error());
  address_ = "127.0.0.1:" + std::to_string(listener->port);
  thread_ = std::thread([this, l = std::move(*listener)]() mutable { serve(std::move(l)); });
  return address_;
}

std::string OkResponder::stop() {
  stopping_ = true;
  if (!thread_.joinable()) return error_;
  // A client that never connected leaves the thread in accept: be that client.
  if (!accepted_) (void)connect_tcp(address_);
  thread_.join();
  return error_;
}

void OkResponder::serve(Listener listener) {
  auto socket = accept_one(listener);
  if (!socket) {
    error_ = socket.error();
    return;
  }
  accepted_ = true;
  std::string in;
  std::vector<char> buf(64 * 1024);
  bool magic_seen = false;
  while (!stopping_) {
    auto n = socket->read_some(buf, std::chrono::nanoseconds::zero());  // never sleeps
    if (!n) {
      if (n.error() != kPeerClosed) error_ = n.error();
      return;
    }
    in.append(buf.data(), *n);
    if (!magic_seen) {
      if (in.size() < kMagic.size()) continue;
      in.erase(0, kMagic.size());
      magic_seen = true;
    }
    std::size_t used = 0;
    std::string out;
    for (bool answer = false;;) {
      const std::size_t len = complete_command(std::string_view(in).substr(used), answer);
      if (len == 0) break;
      used += len;
      if (answer) out += kOkFrame;
    }
    in.erase(0, used);
    if (!out.empty()) {
      if (auto w = socket->write_all(out); !w) {
        error_ = w.error();
        return;
      }
    }
  }
}

}  // namespace nsq::bench
