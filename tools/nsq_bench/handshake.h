#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "frame_buffer.h"
#include "socket.h"

// The request/response steps before the hot loops (magic, IDENTIFY, SUB),
// where simplicity matters more than speed.
namespace nsq::bench {

inline constexpr std::chrono::seconds kHandshakeTimeout{10};

// Connects and sends the magic.
Expected<Socket> open_connection(std::string_view address);

// Sends request (if any), then waits for its response frame and returns its data.
// Heartbeats in between are answered with NOP; an error frame becomes an
// error naming `what` ("SUB: E_BAD_TOPIC ...").
Expected<std::string> request(Socket& socket, FrameBuffer& in, std::string_view request,
                              std::string_view what,
                              std::chrono::nanoseconds timeout = kHandshakeTimeout);

}  // namespace nsq::bench
