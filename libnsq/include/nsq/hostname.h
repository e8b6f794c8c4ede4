#pragma once

#include <string>

namespace nsq {

// The machine's host name, as Go's os.Hostname; "" if it cannot be read.
// Go NSQ's default broadcast address and client hostname.
std::string os_hostname();

}  // namespace nsq
