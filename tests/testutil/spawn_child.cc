#include "testutil/spawn_child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cstring>

namespace nsq::testutil {

std::string spawn_child(const std::string& binary, const std::vector<std::string>& args,
                        const ChildStdio& stdio, pid_t& pid) {
  if (binary.empty() || ::access(binary.c_str(), X_OK) != 0) return "no binary at '" + binary + "'";
  std::vector<std::string> all = {binary};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdio.in >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdio.in, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, stdio.out, 1);
  posix_spawn_file_actions_adddup2(&actions, stdio.err, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all_signals, none;
  sigfillset(&all_signals);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  const int rc = ::posix_spawn(&pid, binary.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    pid = -1;
    return std::string("posix_spawn: ") + std::strerror(rc);
  }
  return {};
}

}  // namespace nsq::testutil
