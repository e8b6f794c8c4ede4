#include "common/process_exit.h"

#include <unistd.h>

#include <cstdio>

namespace nsq::tools {

void exit_now(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(code);
}

}  // namespace nsq::tools
