#include "file_sink.h"

#include <spdlog/spdlog.h>

#include <ctime>

#include "file_mover.h"
#include "filename_format.h"
#include "go_strftime.h"
#include "nsq/flags/go_duration.h"
#include "revision_opener.h"
#include "rotation.h"

namespace nsq::to_file {

Instant Instant::now() {
  return Instant{std::chrono::system_clock::now(), std::chrono::steady_clock::now()};
}

FileSink::FileSink(SinkSettings settings, std::shared_ptr<spdlog::logger> log, std::string context)
    : settings_(std::move(settings)), log_(std::move(log)), context_(std::move(context)) {}

std::string FileSink::name_at(const Instant& now) const {
  const std::time_t t = std::chrono::system_clock::to_time_t(now.wall);
  std::tm local{};
  localtime_r(&t, &local);
  return replace_all(settings_.name_template, "<DATETIME>",
                     go_strftime(settings_.datetime_format, local));
}

std::filesystem::path FileSink::open_path() const {
  return file_ ? file_->path() : std::filesystem::path();
}

bool FileSink::needs_rotation(const Instant& now) {
  const std::string current = name_at(now);
  RotationInput in;
  in.open = file_ != nullptr;
  in.open_name = filename_;
  in.current_name = current;
  in.open_for = now.mono - open_time_;
  in.size = file_ ? file_->size() : 0;
  in.rotate_interval = settings_.rotate_interval;
  in.rotate_size = settings_.rotate_size;
  switch (rotation_reason(in)) {
    case RotationReason::none:
      return false;
    case RotationReason::no_file:
      return true;
    case RotationReason::new_name:
      log_->info("{} new filename {}, rotating...", context_, current);
      return true;
    case RotationReason::interval:
      log_->info("{} {} since last open, rotating...", context_,
                 flags::format_go_duration(in.open_for));
      return true;
    case RotationReason::size:
      log_->info("{} {} currently {} bytes (> {}), rotating...", context_, file_->path().string(),
                 in.size, settings_.rotate_size);
      return true;
  }
  return true;
}

tl::expected<void, std::string> FileSink::rotate(const Instant& now) {
  if (auto closed = close(); !closed) return closed;
  const std::string name = name_at(now);
  rev_ = name != filename_ ? 0 : rev_ + 1;
  filename_ = name;
  open_time_ = now.mono;
  OpenPlan plan;
  plan.work_dir = settings_.work_dir;
  plan.output_dir = settings_.output_dir;
  plan.name = name;
  plan.first_rev = rev_;
  plan.exclusive = settings_.exclusive;
  plan.rotate_size = settings_.rotate_size;
  auto opened = open_next_revision(plan, *log_, context_);
  if (!opened) return tl::unexpected(opened.error());
  rev_ = opened->rev;
  file_ =
      std::make_unique<OutputFile>(opened->fd, opened->path, settings_.gzip_level, opened->size);
  return {};
}

tl::expected<void, std::string> FileSink::write_line(std::string_view body) {
  if (!file_) return tl::unexpected(std::string("writing message to disk: no open file"));
  if (auto written = file_->write(body); !written) {
    return tl::unexpected("writing message to disk: " + written.error());
  }
  if (auto written = file_->write("\n"); !written) {
    return tl::unexpected("writing newline to disk: " + written.error());
  }
  return {};
}

tl::expected<void, std::string> FileSink::sync() {
  if (!file_) return {};
  return file_->sync();
}

tl::expected<void, std::string> FileSink::close() {
  if (!file_) return {};
  auto file = std::move(file_);
  if (auto closed = file->close(); !closed) return closed;
  if (settings_.work_dir == settings_.output_dir) return {};
  MovePlan plan{file->path(), settings_.output_dir, filename_, rev_};
  auto moved = move_without_overwrite(plan, *log_, context_);
  if (!moved) return tl::unexpected(moved.error());
  return {};
}

}  // namespace nsq::to_file
