#include "archive_router.h"

#include <spdlog/spdlog.h>

namespace nsq::to_file {

ArchiveRouter::ArchiveRouter(FileSink sink, Settings settings, ConsumerControl consumer,
                             std::shared_ptr<spdlog::logger> log, std::string context)
    : sink_(std::move(sink)),
      settings_(settings),
      consumer_(std::move(consumer)),
      log_(std::move(log)),
      context_(std::move(context)) {}

void ArchiveRouter::push(client::Message message) {
  {
    std::lock_guard lock(mu_);
    events_.messages.push_back(std::move(message));
  }
  cv_.notify_one();
}

void ArchiveRouter::hangup() {
  {
    std::lock_guard lock(mu_);
    events_.hangup = true;
  }
  cv_.notify_one();
}

void ArchiveRouter::terminate() {
  {
    std::lock_guard lock(mu_);
    events_.terminate = true;
  }
  cv_.notify_one();
}

void ArchiveRouter::consumer_stopped() {
  {
    std::lock_guard lock(mu_);
    events_.stopped = true;
  }
  cv_.notify_one();
}

ArchiveRouter::Events ArchiveRouter::take_events(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [&] {
    return !events_.messages.empty() || events_.hangup || events_.terminate || events_.stopped;
  });
  Events taken = std::move(events_);
  events_ = Events{};
  return taken;
}

tl::expected<void, std::string> ArchiveRouter::sync_and_finish() {
  if (unsynced_.empty()) return {};
  log_->info("{} syncing {} records to disk", context_, unsynced_.size());
  if (auto synced = sink_.sync(); !synced) {
    return tl::unexpected("failed syncing messages: " + synced.error());
  }
  for (const auto& m : unsynced_) m.finish();
  unsynced_.clear();
  return {};
}

tl::expected<void, std::string> ArchiveRouter::run() {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::duration_cast<Clock::duration>(settings_.sync_interval);
  auto next_tick = Clock::now() + interval;
  bool ticking = interval.count() > 0;
  bool stopping = false;
  // A batch never holds more than this unsynced (Go's fixed output array).
  const std::size_t batch_limit =
      settings_.max_in_flight > 0 ? static_cast<std::size_t>(settings_.max_in_flight) : 1;

  while (true) {
    Events events = take_events(ticking ? next_tick : Clock::now() + std::chrono::hours(1));
    bool sync = false;
    bool close_file = false;

    if (events.terminate && !stopping) {
      stopping = true;
      ticking = false;
      consumer_.stop();
      sync = true;
    }
    if (events.hangup) {
      sync = true;
      close_file = true;
    }
    if (ticking && Clock::now() >= next_tick) {
      while (next_tick <= Clock::now()) next_tick += interval;
      const Instant now = Instant::now();
      if (sink_.needs_rotation(now)) {
        if (settings_.skip_empty_files) {
          close_file = true;
        } else if (auto rotated = sink_.rotate(now); !rotated) {
          return rotated;
        }
      }
      sync = true;
    }
    for (auto& m : events.messages) {
      const Instant now = Instant::now();
      if (sink_.needs_rotation(now)) {
        // The old file is synced as it closes; its messages are FIN'd by
        // the sync below.
        if (auto rotated = sink_.rotate(now); !rotated) return rotated;
        sync = true;
      }
      if (auto written = sink_.write_line(m.body()); !written) return written;
      unsynced_.push_back(std::move(m));
      if (unsynced_.size() >= batch_limit) {
        if (auto synced = sync_and_finish(); !synced) return synced;
      }
    }
    if (events.stopped) {
      sync = true;
      close_file = true;
    }
    // While stopping, nothing may wait for a tick: the consumer's stop
    // waits for these answers.
    if (sync || stopping || (!unsynced_.empty() && consumer_.is_starved())) {
      if (auto synced = sync_and_finish(); !synced) return synced;
    }
    if (close_file) {
      if (auto closed = sink_.close(); !closed) return closed;
    }
    if (events.stopped) return {};
  }
}

}  // namespace nsq::to_file
