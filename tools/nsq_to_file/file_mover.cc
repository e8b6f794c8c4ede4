#include "file_mover.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "filename_format.h"
#include "revision_opener.h"

namespace nsq::to_file {
namespace {

// Go's exclusiveRename: link fails with EEXIST instead of replacing.
int link_then_unlink(const std::filesystem::path& src, const std::filesystem::path& dst) {
  if (::link(src.c_str(), dst.c_str()) != 0) return errno;
  if (::unlink(src.c_str()) != 0) return errno;
  return 0;
}

}  // namespace

tl::expected<std::filesystem::path, std::string> move_without_overwrite(
    const MovePlan& plan, spdlog::logger& log, const std::string& context) {
  auto dst = join_clean(plan.output_dir, with_revision(plan.name, plan.rev));
  log.info("{} moving finished file {} to {}", context, plan.source.string(), dst.string());
  if (auto made = make_parent_dirs(dst); !made) return tl::unexpected(made.error());
  int err = link_then_unlink(plan.source, dst);
  if (err == 0) return dst;
  if (err != EEXIST || plan.name.find("<REV>") == std::string::npos) {
    return tl::unexpected("unable to move file from " + plan.source.string() + " to " +
                          dst.string() + ": " + std::strerror(err));
  }
  for (unsigned rev = plan.rev + 1;; ++rev) {
    log.warn("{} destination file already exists: {}", context, dst.string());
    dst = join_clean(plan.output_dir, with_revision(plan.name, rev));
    err = link_then_unlink(plan.source, dst);
    if (err == EEXIST) continue;
    if (err != 0) {
      return tl::unexpected("unable to rename file from " + plan.source.string() + " to " +
                            dst.string() + ": " + std::strerror(err));
    }
    log.info("{} renamed finished file {} to {} to avoid overwrite", context, plan.source.string(),
             dst.string());
    return dst;
  }
}

}  // namespace nsq::to_file
