#include "go_strftime.h"

#include <cstdio>
#include <cstdlib>

namespace nsq::to_file {
namespace {

constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};
constexpr const char* kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "Saturday"};

std::string two_digits(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

// Go's "-0700": sign, hours and minutes of the UTC offset.
std::string numeric_zone(long gmtoff) {
  const char sign = gmtoff < 0 ? '-' : '+';
  const long minutes = std::labs(gmtoff) / 60;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%c%02ld%02ld", sign, minutes / 60, minutes % 60);
  return buf;
}

// One conversion; false if `c` is not one of ours.
bool convert(char c, const std::tm& t, std::string& out) {
  switch (c) {
    case 'B':
      out += kMonths[t.tm_mon % 12];
      return true;
    case 'b':
      out += std::string_view(kMonths[t.tm_mon % 12]).substr(0, 3);
      return true;
    case 'm':
      out += two_digits(t.tm_mon + 1);
      return true;
    case 'A':
      out += kWeekdays[t.tm_wday % 7];
      return true;
    case 'a':
      out += std::string_view(kWeekdays[t.tm_wday % 7]).substr(0, 3);
      return true;
    case 'd':
      out += two_digits(t.tm_mday);
      return true;
    case 'H':
      out += two_digits(t.tm_hour);
      return true;
    case 'I':
      out += two_digits(t.tm_hour % 12 == 0 ? 12 : t.tm_hour % 12);
      return true;
    case 'M':
      out += two_digits(t.tm_min);
      return true;
    case 'S':
      out += two_digits(t.tm_sec);
      return true;
    case 'Y': {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%04d", t.tm_year + 1900);
      out += buf;
      return true;
    }
    case 'y':
      out += two_digits((t.tm_year + 1900) % 100);
      return true;
    case 'p':
      out += t.tm_hour >= 12 ? "PM" : "AM";
      return true;
    case 'Z':
      // Go prints the numeric offset for a zone without an abbreviation.
      if (t.tm_zone != nullptr && t.tm_zone[0] != '\0') {
        out += t.tm_zone;
      } else {
        out += numeric_zone(t.tm_gmtoff);
      }
      return true;
    case 'z':
      out += numeric_zone(t.tm_gmtoff);
      return true;
    case '%':
      out += '%';
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string go_strftime(std::string_view format, const std::tm& t) {
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '%' && i + 1 < format.size() && convert(format[i + 1], t, out)) {
      ++i;
      continue;
    }
    out += format[i];
  }
  return out;
}

}  // namespace nsq::to_file
