#pragma once

#include <string>
#include <string_view>

// The versions the tools claim: they stand in for NSQ v1.3.0 built with
// go-nsq v1.1.0, so scripts and nsqd's client stats see the same strings.
namespace nsq::tools {

inline constexpr std::string_view kNsqVersion = "1.3.0";
inline constexpr std::string_view kGoNsqVersion = "1.1.0";

// "<tool> v1.3.0": Go's --version line, also nsq_to_http's User-Agent.
std::string version_line(std::string_view tool);

// What --version prints: version_line and the git commit the tool was built
// from, e.g. "nsq_tail v1.3.0 (commit 0c25185)".
std::string version_output(std::string_view tool);

// "<tool>/1.3.0 go-nsq/1.1.0": the user_agent sent in IDENTIFY.
std::string user_agent(std::string_view tool);

}  // namespace nsq::tools
