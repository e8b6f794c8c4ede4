#pragma once

#include <string>

namespace nsq::config {

// An exit decided while parsing a daemon's options: usage (--help), the
// version, or an error; main prints `text` and exits with `exit_code`.
struct ParseExit {
  int exit_code = 0;
  std::string text;
  bool to_stderr = false;
};

}  // namespace nsq::config
