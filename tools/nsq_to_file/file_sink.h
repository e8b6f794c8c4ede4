#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "output_file.h"

namespace spdlog {
class logger;
}

namespace nsq::to_file {

// A moment as both clocks see it: the wall clock names files (<DATETIME>,
// local time), the steady clock times --rotate-interval.
struct Instant {
  std::chrono::system_clock::time_point wall;
  std::chrono::steady_clock::time_point mono;
  static Instant now();
};

// How one topic's files are named, opened and finished.
struct SinkSettings {
  std::filesystem::path work_dir;
  std::filesystem::path output_dir;  // == work_dir: files stay where written
  std::string name_template;         // topic_filename_template(): <DATETIME>, maybe <REV>
  std::string datetime_format = "%Y-%m-%d_%H";
  int gzip_level = 0;      // 0 = plain text
  bool exclusive = false;  // O_EXCL (gzip or rotate-interval), else append
  int64_t rotate_size = 0;
  std::chrono::nanoseconds rotate_interval{0};
};

// The file half of Go's FileLogger for one topic: which file is open, its
// revision, when it must rotate, and how it is finished (sync, close, move
// from the work dir). Errors are fatal for the tool, as in Go.
//
// @par Thread Safety: none; owned by the topic's router thread.
class FileSink {
 public:
  // context: "[topic/channel]" for log lines. log must not be null.
  FileSink(SinkSettings settings, std::shared_ptr<spdlog::logger> log, std::string context);
  FileSink(FileSink&&) = default;

  // Whether a new file is needed before writing now; logs why (as Go).
  bool needs_rotation(const Instant& now);
  // Go's updateFile: finishes the open file, then opens the next one: the
  // same name with the next revision, or revision 0 of a new name.
  tl::expected<void, std::string> rotate(const Instant& now);
  // body and '\n' into the open file (rotate() first if none is open).
  tl::expected<void, std::string> write_line(std::string_view body);
  // Makes all lines written durable; nothing to do without an open file.
  tl::expected<void, std::string> sync();
  // Finishes the open file (gzip end, fsync, close, move to the output
  // dir). Nothing to do without one.
  tl::expected<void, std::string> close();

  bool is_open() const { return file_ != nullptr; }
  // Path of the open file (empty if none).
  std::filesystem::path open_path() const;

 private:
  std::string name_at(const Instant& now) const;

  SinkSettings settings_;
  std::shared_ptr<spdlog::logger> log_;
  std::string context_;
  std::unique_ptr<OutputFile> file_;
  std::string filename_;  // name with the datetime of the open (or last) file
  unsigned rev_ = 0;
  std::chrono::steady_clock::time_point open_time_{};
};

}  // namespace nsq::to_file
