#pragma once

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace nsq::testutil {

// A tmpfs of `size_kib` mounted on a fresh directory for the scope, so a
// test can fill a real file system. mounted() is false (with why()) where
// mounting is not permitted (no CAP_SYS_ADMIN): the test then skips.
class SmallTmpfs {
 public:
  SmallTmpfs(const std::filesystem::path& dir, int size_kib) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    std::string opts = "size=" + std::to_string(size_kib) + "k,mode=0700";
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, opts.c_str()) == 0) {
      mounted_ = true;
    } else {
      why_ = std::string("mount tmpfs on ") + dir_.string() + ": " + std::strerror(errno);
    }
  }
  ~SmallTmpfs() {
    // Lazy: a still running child holding files must not keep it mounted.
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string why_;
};

}  // namespace nsq::testutil
