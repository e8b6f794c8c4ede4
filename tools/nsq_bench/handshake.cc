#include "handshake.h"

#include "clock.h"
#include "commands.h"

namespace nsq::bench {

Expected<Socket> open_connection(std::string_view address) {
  auto socket = connect_tcp(address);
  if (!socket) return socket;
  if (auto w = socket->write_all(kMagic); !w) return tl::unexpected(w.error());
  return socket;
}

Expected<std::string> request(Socket& socket, FrameBuffer& in, std::string_view req,
                              std::string_view what, std::chrono::nanoseconds timeout) {
  if (!req.empty()) {
    if (auto w = socket.write_all(req); !w)
      return tl::unexpected(std::string(what) + ": " + w.error());
  }
  const auto deadline = SteadyClock::now() + timeout;
  for (;;) {
    while (auto frame = in.next()) {
      if (frame->type == FrameType::error)
        return tl::unexpected(std::string(what) + ": " + std::string(frame->data));
      if (frame->type != FrameType::response) {
        return tl::unexpected(std::string(what) + ": unexpected frame type " +
                              std::to_string(static_cast<int>(frame->type)));
      }
      if (frame->data == kHeartbeat) {
        if (auto w = socket.write_all(kNop); !w)
          return tl::unexpected(std::string(what) + ": " + w.error());
        continue;
      }
      return std::string(frame->data);
    }
    if (in.error())
      return tl::unexpected(std::string(what) + ": bad frame: " + in.error().message());
    const auto now = SteadyClock::now();
    if (now >= deadline) return tl::unexpected(std::string(what) + ": no response");
    auto n = socket.read_some(in.prepare(), deadline - now);
    if (!n) return tl::unexpected(std::string(what) + ": " + n.error());
    in.commit(*n);
  }
}

}  // namespace nsq::bench
