#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

// Go's time.Duration text form, used by every duration flag and config value.
namespace nsq::flags {

// time.ParseDuration: signed sequence of decimal numbers with optional
// fraction and a unit each (ns, us, µs, ms, s, m, h), e.g. "1h30m", "1.5s",
// "-250ms"; "0" alone needs no unit. The error is Go's text, e.g.
// `time: missing unit in duration "1"`. (A string error rather than
// nsq::Result because the text is what the user sees at startup.)
tl::expected<std::chrono::nanoseconds, std::string> parse_go_duration(std::string_view s);

// time.Duration.String: "0s", "250ms", "1.5µs", "2s", "1m0s", "1h0m0s".
std::string format_go_duration(std::chrono::nanoseconds d);

}  // namespace nsq::flags
