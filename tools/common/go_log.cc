#include "common/go_log.h"

#include <cstdio>
#include <ctime>
#include <string>

#include "common/process_exit.h"

namespace nsq::tools {

void log_line(std::string_view text) {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y/%m/%d %H:%M:%S ", &local);
  std::string line = stamp;
  line.append(text);
  if (line.back() != '\n') line.push_back('\n');
  // One fwrite per line so lines from several threads do not interleave.
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void log_fatal(std::string_view text) {
  log_line(text);
  exit_now(1);
}

}  // namespace nsq::tools
