#include "nsq/hostname.h"

#include <unistd.h>

#include <climits>

namespace nsq {

std::string os_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

}  // namespace nsq
