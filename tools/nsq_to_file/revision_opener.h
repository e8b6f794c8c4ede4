#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <tl/expected.hpp>

namespace spdlog {
class logger;
}

namespace nsq::to_file {

// Where and how nsq_to_file opens the next file of a name.
struct OpenPlan {
  std::filesystem::path work_dir;
  std::filesystem::path output_dir;  // == work_dir: no move on close
  std::string name;                  // relative, <DATETIME> done, <REV> maybe left
  unsigned first_rev = 0;
  bool exclusive = false;   // O_EXCL (gzip or rotate-interval), else O_APPEND
  int64_t rotate_size = 0;  // an existing file larger than this is skipped
};

struct OpenedFile {
  int fd = -1;  // the caller owns it
  std::filesystem::path path;
  unsigned rev = 0;
  int64_t size = 0;  // bytes already in it (append mode)
};

// Go's updateFile loop: from first_rev on, the first revision whose name is
// free in the output dir (when it differs from the work dir), can be opened
// (O_EXCL fails on an existing file) and is not over rotate_size. Creates
// missing directories (0770). `log` gets Go's WARN/INFO lines, prefixed with
// `context` ("[topic/channel]"). Errors are fatal for the tool.
tl::expected<OpenedFile, std::string> open_next_revision(const OpenPlan& plan, spdlog::logger& log,
                                                         const std::string& context);

// mkdir -p of path's parent directory with mode 0770.
tl::expected<void, std::string> make_parent_dirs(const std::filesystem::path& path);

// dir/name, cleaned as Go's path.Join.
std::filesystem::path join_clean(const std::filesystem::path& dir, const std::string& name);

}  // namespace nsq::to_file
