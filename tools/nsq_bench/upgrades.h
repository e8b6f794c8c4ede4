#pragma once

#include <string_view>

#include "frame_buffer.h"
#include "socket.h"

// The IDENTIFY upgrades (tcp-protocol.md §6.1): after the JSON response, TLS
// if granted (handshake, then an OK), then snappy or deflate (an OK through
// the compressed stream).
namespace nsq::bench {

// `identify_response` is the JSON the server answered; `in` holds whatever
// was read past it.
Expected<void> apply_upgrades(Socket& socket, FrameBuffer& in, std::string_view identify_response);

// A boolean member of a flat JSON object such as the IDENTIFY reply.
bool json_true(std::string_view json, std::string_view key);

}  // namespace nsq::bench
