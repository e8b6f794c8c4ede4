#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// The checkpoint file: three lines "<depth>\n<readFileNum>,<readPos>\n<writeFileNum>,<writePos>\n",
// decimal, as go-diskqueue writes and reads them.
namespace nsq::diskqueue::meta_file {

struct Meta {
  std::int64_t depth = 0;
  std::int64_t read_file_num = 0;
  std::int64_t read_pos = 0;
  std::int64_t write_file_num = 0;
  std::int64_t write_pos = 0;
};

std::string format(const Meta& meta);

// Parses as Go's Fscanf("%d\n%d,%d\n%d,%d\n") does. On failure returns false;
// the fields parsed before the failure are set, the others keep their value
// (go-diskqueue keeps those positions; callers reset depth).
bool parse(std::string_view text, Meta& meta);

}  // namespace nsq::diskqueue::meta_file
