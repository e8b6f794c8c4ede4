#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <tl/expected.hpp>

namespace spdlog {
class logger;
}

namespace nsq::to_file {

// What a finished file in the work dir becomes in the output dir.
struct MovePlan {
  std::filesystem::path source;  // the closed file in the work dir
  std::filesystem::path output_dir;
  std::string name;  // relative name template, <REV> not replaced
  unsigned rev = 0;  // the revision the source was opened with
};

// Moves a closed file from the work dir to the output dir without ever
// replacing an existing file: hard link, then unlink of the source. If the
// name is taken, the next revisions (rev+1, rev+2, ...) are tried. Returns
// the final path. `log` gets Go's INFO/WARN lines, prefixed with `context`.
tl::expected<std::filesystem::path, std::string> move_without_overwrite(const MovePlan& plan,
                                                                        spdlog::logger& log,
                                                                        const std::string& context);

}  // namespace nsq::to_file
