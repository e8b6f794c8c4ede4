#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/message.h"

// Client -> nsqd commands as bytes (spec/tcp-protocol.md §6).
namespace nsq::client::commands {

std::string pub(std::string_view topic, std::string_view body);
std::string mpub(std::string_view topic, const std::vector<std::string>& bodies);
std::string dpub(std::string_view topic, std::chrono::milliseconds delay, std::string_view body);
std::string sub(std::string_view topic, std::string_view channel);
std::string rdy(int64_t count);
std::string fin(const MessageId& id);
std::string req(const MessageId& id, std::chrono::milliseconds delay);
std::string touch(const MessageId& id);
inline constexpr std::string_view kNop = "NOP\n";
inline constexpr std::string_view kCls = "CLS\n";

}  // namespace nsq::client::commands
