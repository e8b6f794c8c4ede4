#include "revision_opener.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "filename_format.h"

namespace nsq::to_file {

std::filesystem::path join_clean(const std::filesystem::path& dir, const std::string& name) {
  return (dir / name).lexically_normal();
}

tl::expected<void, std::string> make_parent_dirs(const std::filesystem::path& path) {
  // Go's os.MkdirAll(dir, 0770): every missing level with that mode.
  std::filesystem::path partial;
  for (const auto& part : path.parent_path()) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0770) != 0 && errno != EEXIST) {
      return tl::unexpected("mkdir " + partial.string() + ": " + std::strerror(errno));
    }
  }
  return {};
}

tl::expected<OpenedFile, std::string> open_next_revision(const OpenPlan& plan, spdlog::logger& log,
                                                         const std::string& context) {
  const bool move_on_close = plan.work_dir != plan.output_dir;
  const auto template_path = join_clean(plan.work_dir, plan.name);
  if (auto made = make_parent_dirs(template_path); !made) {
    return tl::unexpected("unable to create dir: " + made.error());
  }
  for (unsigned rev = plan.first_rev;; ++rev) {
    const std::string name = with_revision(plan.name, rev);
    const auto path = join_clean(plan.work_dir, name);
    if (move_on_close) {
      // Checked before writing so the move on close normally succeeds.
      const auto output = join_clean(plan.output_dir, name);
      if (auto made = make_parent_dirs(output); !made) {
        return tl::unexpected("unable to create dir: " + made.error());
      }
      struct stat st {};
      if (::stat(output.c_str(), &st) == 0) {
        log.warn("{} output file already exists: {}", context, output.string());
        continue;
      }
      if (errno != ENOENT) {
        return tl::unexpected("unable to stat output file " + output.string() + ": " +
                              std::strerror(errno));
      }
    }
    const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (plan.exclusive ? O_EXCL : O_APPEND);
    const int fd = ::open(path.c_str(), flags, 0666);
    if (fd < 0) {
      if (errno == EEXIST) {
        log.warn("{} working file already exists: {}", context, path.string());
        continue;
      }
      return tl::unexpected("unable to open " + path.string() + ": " + std::strerror(errno));
    }
    log.info("{} opening {}", context, path.string());
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      return tl::unexpected("unable to stat file " + path.string() + ": " + std::strerror(err));
    }
    const auto size = static_cast<int64_t>(st.st_size);
    if (plan.rotate_size > 0 && size > plan.rotate_size) {
      log.info("{} {} currently {} bytes (> {}), rotating...", context, path.string(), size,
               plan.rotate_size);
      ::close(fd);
      continue;
    }
    return OpenedFile{fd, path, rev, size};
  }
}

}  // namespace nsq::to_file
