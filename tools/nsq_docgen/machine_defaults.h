#pragma once

#include <string_view>

namespace nsq::docgen {

// Flags whose default is computed from the machine the program runs on
// (the OS hostname, a hash of it): --help on the build host shows that
// host's value, which neither a man page nor an installed config should
// carry. Their usage text already says where the default comes from.
inline bool is_machine_dependent(std::string_view flag) {
  return flag == "broadcast-address" || flag == "node-id";
}

}  // namespace nsq::docgen
