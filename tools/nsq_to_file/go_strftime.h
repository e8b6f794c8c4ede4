#pragma once

#include <ctime>
#include <string>
#include <string_view>

namespace nsq::to_file {

// nsq_to_file's strftime for <DATETIME> (spec/tools.md §2): %B %b %m %A %a
// %d %H %I %M %S %Y %y %p %Z %z %% with Go's spellings (English names, "PM",
// "-0700"); any other text, including an unknown %x or a final '%', is
// copied as is. `t` is a local broken-down time with glibc's tm_gmtoff and
// tm_zone filled (localtime_r does).
//
// (Go builds a time.Format layout from the format, so digits in the literal
// text can be taken as layout tokens there; the spec makes them literal.)
std::string go_strftime(std::string_view format, const std::tm& t);

}  // namespace nsq::to_file
