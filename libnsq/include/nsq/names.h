#pragma once

#include <cstddef>
#include <string_view>

namespace nsq {

// Topic and channel names: ^[.a-zA-Z0-9_-]+(#ephemeral)?$, 1..64 bytes with
// the suffix. The same rule applies everywhere a name enters nsqd (TCP, HTTP,
// lookupd, metadata), so there is one implementation.
inline constexpr std::size_t kMaxNameLength = 64;
inline constexpr std::string_view kEphemeralSuffix = "#ephemeral";

bool is_valid_topic_name(std::string_view name) noexcept;
bool is_valid_channel_name(std::string_view name) noexcept;

// True when the name ends in "#ephemeral" (no validity check, as nsqd).
bool is_ephemeral(std::string_view name) noexcept;

}  // namespace nsq
