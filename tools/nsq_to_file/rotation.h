#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace nsq::to_file {

// Why the current file must be replaced before the next write (Go's
// needsRotation, checked in this order).
enum class RotationReason {
  none,
  no_file,   // nothing open (start, after SIGHUP or a skip-empty close)
  new_name,  // <DATETIME> now gives another name
  interval,  // open longer than --rotate-interval
  size,      // more than --rotate-size bytes handed to it
};

struct RotationInput {
  bool open = false;
  std::string_view open_name;     // name (datetime applied) of the open file
  std::string_view current_name;  // name the datetime gives now
  std::chrono::nanoseconds open_for{0};
  int64_t size = 0;
  std::chrono::nanoseconds rotate_interval{0};  // 0 = off
  int64_t rotate_size = 0;                      // 0 = off
};

RotationReason rotation_reason(const RotationInput& input);

}  // namespace nsq::to_file
