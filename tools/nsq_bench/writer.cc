#include "writer.h"

#include <algorithm>
#include <optional>

#include "commands.h"
#include "handshake.h"
#include "upgrades.h"

namespace nsq::bench {
namespace {

// Longest a blocked thread goes without looking at the stop flag.
constexpr std::chrono::milliseconds kPollInterval{50};

}  // namespace

Writer::Writer(WriterConfig config, RunControl& control, int index)
    : config_(std::move(config)), control_(control), index_(index) {}

void Writer::run() {
  auto socket = connect();
  control_.ready.count_down();
  if (!socket) {
    control_.fail(name() + ": " + socket.error());
    return;
  }
  control_.go.wait();
  if (control_.stop_writers.load()) return;
  if (auto r = publish(*socket); !r) control_.fail(name() + ": " + r.error());
}

Expected<Socket> Writer::connect() {
  auto socket = open_connection(config_.address);
  if (!socket) return socket;
  const IdentifySettings& f = config_.features;
  const bool upgrades = f.tls_v1 || f.snappy || f.deflate;
  if (config_.identify || upgrades) {
    IdentifySettings settings = f;
    settings.feature_negotiation = upgrades;  // else a plain OK: no JSON to parse
    auto r = request(*socket, in_, identify_command(identify_json(settings)), "IDENTIFY");
    if (!r) return tl::unexpected(r.error());
    if (upgrades) {
      if (auto u = apply_upgrades(*socket, in_, *r); !u) return tl::unexpected(u.error());
    }
  }
  return socket;
}

Expected<void> Writer::publish(Socket& socket) {
  PublishBatch batch(config_.topic, config_.batch_size, config_.size);
  const Pacer pacer(config_.rate, control_.start);
  const auto pipeline = static_cast<std::size_t>(config_.pipeline);
  uint64_t sent = 0;  // messages
  std::optional<SteadyClock::time_point> drain_until;
  for (;;) {
    auto now = SteadyClock::now();
    if (!drain_until && control_.stop_writers.load(std::memory_order_relaxed))
      drain_until = now + config_.drain;
    if (!drain_until) {
      while (sent_at_.size() < pipeline && !(pacer.paced() && now < pacer.due(sent))) {
        if (config_.stamp) batch.stamp(realtime_ns());
        sent_at_.push_back(SteadyClock::now());
        if (auto w = socket.write_all(batch.bytes()); !w) return w;
        sent += static_cast<uint64_t>(batch.count());
        now = SteadyClock::now();
      }
    } else if (sent_at_.empty() || now >= *drain_until) {
      return {};  // unanswered requests (drain timeout) show in unacked_batches()
    }
    std::chrono::nanoseconds timeout = kPollInterval;
    if (!drain_until && sent_at_.size() < pipeline && pacer.paced()) {
      // Wake up when the next send is due, even with no reply to read.
      timeout = std::clamp<std::chrono::nanoseconds>(
          pacer.due(sent) - now, std::chrono::nanoseconds::zero(), kPollInterval);
    }
    auto n = socket.read_some(in_.prepare(), timeout);
    if (!n) return tl::unexpected(n.error());
    in_.commit(*n);
    while (auto frame = in_.next()) {
      if (auto r = on_frame(socket, *frame); !r) return r;
    }
    if (in_.error()) return tl::unexpected("bad frame from nsqd: " + in_.error().message());
  }
}

Expected<void> Writer::on_frame(Socket& socket, const FrameView& frame) {
  if (frame.type == FrameType::error)
    return tl::unexpected("nsqd replied " + std::string(frame.data));
  if (frame.type != FrameType::response) {
    return tl::unexpected("unexpected frame type " + std::to_string(static_cast<int>(frame.type)));
  }
  if (frame.data == kHeartbeat) return socket.write_all(kNop);
  if (frame.data != kOk)
    return tl::unexpected("unexpected response \"" + std::string(frame.data) + "\"");
  if (sent_at_.empty()) return tl::unexpected(std::string("OK without a request"));
  const auto now = SteadyClock::now();
  round_trips_.record(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - sent_at_.front()).count()));
  sent_at_.pop_front();
  last_ack_ = now;
  acked_.fetch_add(static_cast<uint64_t>(config_.batch_size), std::memory_order_relaxed);
  return {};
}

}  // namespace nsq::bench
