// Loaded into nsqd with LD_PRELOAD by cluster_disk_faults_test.cc: fsync()
// and fdatasync() fail with EIO while the file named by
// $NSQ_FAIL_FSYNC_WHILE exists, as on a disk whose writes are cached but
// whose flushes fail; otherwise they are libc's.
#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include <cstdlib>

namespace {

using SyncFn = int (*)(int);

bool failing() {
  const char* flag = std::getenv("NSQ_FAIL_FSYNC_WHILE");
  return flag != nullptr && ::access(flag, F_OK) == 0;
}

int call(const char* name, int fd) {
  if (failing()) {
    errno = EIO;
    return -1;
  }
  auto real = reinterpret_cast<SyncFn>(::dlsym(RTLD_NEXT, name));
  return real(fd);
}

}  // namespace

extern "C" int fsync(int fd) { return call("fsync", fd); }
extern "C" int fdatasync(int fd) { return call("fdatasync", fd); }
