#include "reader.h"

#include <algorithm>

#include "handshake.h"
#include "nsq/endian.h"
#include "nsq/message.h"
#include "upgrades.h"

namespace nsq::bench {
namespace {

constexpr std::chrono::milliseconds kPollInterval{50};
// How long a stopping reader waits for CLOSE_WAIT, FINning what still comes.
constexpr std::chrono::seconds kCloseTimeout{1};

}  // namespace

Reader::Reader(ReaderConfig config, RunControl& control, int index)
    : config_(std::move(config)), control_(control), index_(index), rdy_(config_.rdy) {
  out_.reserve(64 * 1024);
}

void Reader::run() {
  auto socket = connect();
  control_.ready.count_down();
  if (!socket) {
    control_.fail(name() + ": " + socket.error());
    return;
  }
  control_.go.wait();
  if (control_.stop_readers.load()) return;
  if (auto r = consume(*socket); !r) {
    control_.fail(name() + ": " + r.error());
    return;
  }
  close(*socket);
}

Expected<Socket> Reader::connect() {
  auto socket = open_connection(config_.address);
  if (!socket) return socket;
  auto identify =
      request(*socket, in_, identify_command(identify_json(config_.identify)), "IDENTIFY");
  if (!identify) return tl::unexpected(identify.error());
  if (identify->starts_with('{')) {
    if (auto u = apply_upgrades(*socket, in_, *identify); !u) return tl::unexpected(u.error());
    // RDY above the server's max is fatal (E_INVALID); use its max instead.
    if (auto max = json_int_field(*identify, "max_rdy_count"); max && *max > 0 && *max < rdy_) {
      rdy_clamped_to_ = *max;
      rdy_ = static_cast<int>(*max);
    }
  }
  auto sub = request(*socket, in_, sub_command(config_.topic, config_.channel), "SUB");
  if (!sub) return tl::unexpected(sub.error());
  if (*sub != kOk) return tl::unexpected("SUB: unexpected response \"" + *sub + "\"");
  return socket;
}

Expected<void> Reader::consume(Socket& socket) {
  if (auto w = socket.write_all(rdy_command(rdy_)); !w) return w;
  while (!control_.stop_readers.load(std::memory_order_relaxed)) {
    auto n = socket.read_some(in_.prepare(), kPollInterval);
    if (!n) return tl::unexpected(n.error());
    if (*n == 0) continue;
    in_.commit(*n);
    // One clock read per socket read: those messages arrived together.
    const uint64_t before = count_;
    if (auto r = on_frames(config_.latency ? realtime_ns() : 0); !r) return r;
    if (!out_.empty()) {
      if (auto w = socket.write_all(out_); !w) return w;
      out_.clear();
    }
    if (count_ != before) {
      last_message_ = SteadyClock::now();
      messages_.store(count_, std::memory_order_relaxed);
    }
  }
  return {};
}

Expected<void> Reader::on_frames(int64_t now_realtime_ns) {
  while (auto frame = in_.next()) {
    switch (frame->type) {
      case FrameType::message: {
        auto msg = decode_message(frame->data);
        if (!msg) return tl::unexpected(std::string("bad message frame: ") + msg.error().message());
        ++count_;
        bytes_ += msg->body.size();
        if (config_.latency && msg->body.size() >= kStampSize) {
          const int64_t stamp = get_i64be(msg->body.data());
          if (stamp < control_.start_realtime_ns) {
            ++stale_;
          } else {
            latency_.record(static_cast<uint64_t>(std::max<int64_t>(0, now_realtime_ns - stamp)));
          }
        }
        append_fin(out_, to_string_view(msg->header.id));
        break;
      }
      case FrameType::response:
        if (frame->data == kHeartbeat) out_ += kNop;
        break;  // CLOSE_WAIT is looked for in close()
      case FrameType::error:
        // FIN of a message that timed out meanwhile: not fatal, only counted.
        if (frame->data.starts_with("E_FIN_FAILED")) {
          ++fin_failed_;
          break;
        }
        return tl::unexpected("nsqd replied " + std::string(frame->data));
      default:
        return tl::unexpected("unexpected frame type " +
                              std::to_string(static_cast<int>(frame->type)));
    }
  }
  if (in_.error()) return tl::unexpected("bad frame from nsqd: " + in_.error().message());
  return {};
}

void Reader::close(Socket& socket) {
  // CLS, then FIN what was already on its way until CLOSE_WAIT, so no message
  // is left in flight to time out and be redelivered to the next run. These
  // late messages are not counted: the measured interval is over.
  if (!socket.write_all(kCls)) return;
  const auto deadline = SteadyClock::now() + kCloseTimeout;
  for (;;) {
    const auto now = SteadyClock::now();
    if (now >= deadline) return;
    auto n = socket.read_some(in_.prepare(), deadline - now);
    if (!n || *n == 0) return;
    in_.commit(*n);
    bool closed = false;
    while (auto frame = in_.next()) {
      if (frame->type == FrameType::message) {
        if (auto msg = decode_message(frame->data))
          append_fin(out_, to_string_view(msg->header.id));
      } else if (frame->type == FrameType::response && frame->data == kCloseWait) {
        closed = true;
      }
    }
    if (!out_.empty() && !socket.write_all(out_)) return;
    out_.clear();
    if (closed || in_.error()) return;
  }
}

}  // namespace nsq::bench
