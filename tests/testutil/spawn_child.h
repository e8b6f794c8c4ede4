#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace nsq::testutil {

// Where a child's standard streams go: file descriptors of the parent,
// dup2'd into the child; stdin -1 is /dev/null.
struct ChildStdio {
  int in = -1;
  int out = -1;
  int err = -1;
};

// Starts `binary` with `args` and the test's environment, with default
// signal dispositions and an empty signal mask whatever the test runner set
// (a child that inherited an ignored SIGTERM would not stop when told).
// Sets `pid` and returns "" on success, else why it failed.
std::string spawn_child(const std::string& binary, const std::vector<std::string>& args,
                        const ChildStdio& stdio, pid_t& pid);

}  // namespace nsq::testutil
