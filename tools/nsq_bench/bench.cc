#include "bench.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "group_commit_limit.h"
#include "loopback.h"
#include "nsq/hostname.h"
#include "ok_responder.h"
#include "reader.h"
#include "report.h"
#include "writer.h"

namespace nsq::bench {
namespace {

constexpr std::chrono::milliseconds kTick{50};

// Bytes nsqd adds around a body in a delivered message frame: size, type
// and the 26-byte message header. Turns the loopback figure into a ceiling
// in messages/s for --size.
constexpr double kDeliveryOverhead = 4 + 4 + 26;

// One connection, one PUB at a time: against nsqd or against OkResponder.
bool single_pub(Mode mode) { return mode == Mode::pub_latency || mode == Mode::pub_latency_limit; }

int run_loopback(const Options& o, std::ostream& out, std::ostream& err) {
  auto r = measure_loopback(o.runfor);
  if (!r) {
    err << "nsq_bench: " << r.error() << '\n';
    return 1;
  }
  const double secs = r->secs > 0 ? r->secs : 1e-9;
  const double gib = static_cast<double>(r->bytes) / kGiB / secs;
  const double msgs = static_cast<double>(r->bytes) / (o.size + kDeliveryOverhead) / secs;
  out << "loopback: " << r->bytes << " bytes in " << format_fixed(r->secs, 3)
      << "s: " << format_fixed(gib, 2)
      << " GiB/s (one 64 KiB writer, one reader) = " << format_fixed(msgs, 0)
      << " msgs/s of --size=" << o.size << " as delivery frames\n";
  out << ResultLine("loopback-limit")
             .add("bytes", r->bytes)
             .add("secs", r->secs, 3)
             .add("gib_per_sec", gib, 3)
             .add("mb_per_sec", static_cast<double>(r->bytes) / kMiB / secs, 1)
             .add("msgs_per_sec", msgs, 0)
             .str()
      << '\n';
  return 0;
}

int run_group_commit(const Options& o, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  const std::filesystem::path dir = o.data_path.empty() ? std::filesystem::temp_directory_path(ec)
                                                        : std::filesystem::path(o.data_path);
  auto r = measure_group_commit(dir, o.writers, o.size, o.runfor);
  if (!r) {
    err << "nsq_bench: " << r.error() << '\n';
    return 1;
  }
  const double secs = r->secs > 0 ? r->secs : 1e-9;
  const double per_fsync =
      r->fsyncs > 0 ? static_cast<double>(r->acknowledged) / static_cast<double>(r->fsyncs) : 0;
  out << "group-commit-limit: " << o.writers << " clients, " << r->acknowledged << " messages of "
      << o.size << " bytes acknowledged after " << r->fsyncs << " fdatasyncs in " << dir.string()
      << " in " << format_fixed(r->secs, 3)
      << "s: " << format_fixed(static_cast<double>(r->acknowledged) / secs, 0) << " msgs/s, "
      << format_fixed(per_fsync, 1) << " per fsync\n";
  out << ResultLine("group-commit-limit")
             .add("msgs", r->acknowledged)
             .add("secs", r->secs, 3)
             .add("msgs_per_sec", static_cast<double>(r->acknowledged) / secs, 0)
             .add("fsyncs_per_sec", static_cast<double>(r->fsyncs) / secs, 0)
             .add("msgs_per_fsync", per_fsync, 1)
             .str()
      << '\n';
  return 0;
}

// Sums the live counters of all connections.
struct Counters {
  uint64_t published = 0;
  uint64_t consumed = 0;
};

class NsqdBench {
 public:
  NsqdBench(const Options& o, Mode mode, std::ostream& out, std::ostream& err)
      : o_(o),
        mode_(mode),
        out_(out),
        err_(err),
        n_writers_(mode == Mode::reader ? 0
                   : single_pub(mode)   ? 1
                                        : o.writers),
        n_readers_(mode == Mode::reader || mode == Mode::both ? o.readers : 0),
        control_(n_writers_ + n_readers_) {}

  int run() {
    start_threads();
    control_.ready.wait();
    if (auto e = control_.error()) return finish_with_error(*e);
    control_.start = SteadyClock::now();
    control_.start_realtime_ns = realtime_ns();
    control_.go.count_down();
    monitor();
    control_.stop_writers = true;
    control_.stop_readers = true;
    for (auto& t : threads_) t.join();
    if (auto e = control_.error()) {
      err_ << "nsq_bench: " << *e << '\n';
      return 1;
    }
    report();
    return 0;
  }

 private:
  void start_threads() {
    WriterConfig wc;
    wc.address = o_.nsqd_tcp_address;
    wc.topic = o_.topic;
    wc.batch_size = single_pub(mode_) ? 1 : o_.batch_size;
    wc.size = o_.size;
    wc.pipeline = single_pub(mode_) ? 1 : o_.pipeline;
    wc.identify = o_.identify;
    wc.features.tls_v1 = o_.tls;
    wc.features.snappy = o_.snappy;
    wc.features.deflate = o_.deflate;
    wc.features.deflate_level = o_.deflate_level;
    wc.stamp = o_.latency;
    wc.rate = n_writers_ > 0 ? static_cast<double>(o_.rate) / n_writers_ : 0;
    wc.drain = o_.drain;
    for (int i = 0; i < n_writers_; ++i)
      writers_.push_back(std::make_unique<Writer>(wc, control_, i));

    ReaderConfig rc;
    rc.address = o_.nsqd_tcp_address;
    rc.topic = o_.topic;
    rc.channel = o_.channel;
    rc.rdy = o_.rdy;
    rc.latency = o_.latency;
    rc.identify.hostname = os_hostname();
    rc.identify.output_buffer_size = o_.output_buffer_size;
    rc.identify.tls_v1 = o_.tls;
    rc.identify.snappy = o_.snappy;
    rc.identify.deflate = o_.deflate;
    rc.identify.deflate_level = o_.deflate_level;
    rc.identify.output_buffer_timeout_ms =
        o_.output_buffer_timeout < std::chrono::nanoseconds::zero()
            ? -1
            : std::chrono::duration_cast<std::chrono::milliseconds>(o_.output_buffer_timeout)
                  .count();
    for (int i = 0; i < n_readers_; ++i)
      readers_.push_back(std::make_unique<Reader>(rc, control_, i));

    for (auto& w : writers_) threads_.emplace_back(&Writer::run, w.get());
    for (auto& r : readers_) threads_.emplace_back(&Reader::run, r.get());
  }

  int finish_with_error(const std::string& e) {
    control_.go.count_down();  // the threads that did connect wait on it
    for (auto& t : threads_) t.join();
    err_ << "nsq_bench: " << e << '\n';
    return 1;
  }

  Counters counters() const {
    Counters c;
    for (const auto& w : writers_) c.published += w->acked_messages();
    for (const auto& r : readers_) c.consumed += r->messages();
    return c;
  }

  // Decides when each side stops (see Options::idle_exit and drain) and
  // prints the progress lines.
  void monitor() {
    const auto start = control_.start;
    const auto run_end = start + o_.runfor;
    std::optional<SteadyClock::time_point> writers_stopped;
    uint64_t last_consumed = 0;
    auto last_consumed_change = start;
    Counters prev;
    auto prev_at = start;
    int second = 0;
    for (auto tick = start + kTick;; tick += kTick) {
      std::this_thread::sleep_until(tick);
      const auto now = SteadyClock::now();
      if (control_.error()) return;
      if (n_writers_ > 0 && !writers_stopped && now >= run_end) {
        control_.stop_writers = true;
        writers_stopped = now;
      }
      const Counters c = counters();
      if (c.consumed != last_consumed) {
        last_consumed = c.consumed;
        last_consumed_change = now;
      }
      if (o_.progress && now - prev_at >= std::chrono::seconds(1)) {
        out_ << progress_line(++second, std::chrono::duration<double>(now - prev_at).count(),
                              c.published - prev.published, c.consumed - prev.consumed, o_.size,
                              n_writers_ > 0, n_readers_ > 0)
             << std::endl;
        prev = c;
        prev_at = now;
      }
      const bool idle = now - last_consumed_change >= o_.idle_exit;
      if (n_readers_ == 0) {
        if (writers_stopped) return;
      } else if (n_writers_ == 0) {
        // Reader mode: the queue was filled before; stop when drained.
        if (now >= run_end || (last_consumed > 0 && idle)) return;
      } else if (writers_stopped && (idle || now >= *writers_stopped + o_.drain)) {
        return;
      }
    }
  }

  double secs_until(SteadyClock::time_point last) const {
    if (last <= control_.start) return 0;
    return std::chrono::duration<double>(last - control_.start).count();
  }

  void report() {
    ResultLine result(mode_name(mode_));
    RoleSummary pub;
    LatencyHistogram round_trips;
    if (n_writers_ > 0) {
      SteadyClock::time_point last{};
      uint64_t unacked = 0;
      for (const auto& w : writers_) {
        pub.messages += w->acked_messages();
        last = std::max(last, w->last_ack());
        unacked += w->unacked_batches();
        round_trips.merge(w->round_trips());
      }
      pub.connections = n_writers_;
      pub.body_bytes = pub.messages * static_cast<uint64_t>(o_.size);
      pub.secs = secs_until(last);
      out_ << role_line(single_pub(mode_) ? "pub-latency" : "writer", pub) << '\n';
      out_ << "  "
           << percentile_line(single_pub(mode_) ? "PUB->OK round trip" : "request->OK round trip",
                              round_trips)
           << '\n';
      if (unacked > 0) out_ << "  warning: " << unacked << " requests unanswered after --drain\n";
      result.add_role("", pub);
    }
    RoleSummary sub;
    LatencyHistogram latency;
    if (n_readers_ > 0) {
      SteadyClock::time_point last{};
      uint64_t fin_failed = 0;
      uint64_t stale = 0;
      for (const auto& r : readers_) {
        sub.messages += r->messages();
        sub.body_bytes += r->body_bytes();
        last = std::max(last, r->last_message());
        fin_failed += r->fin_failed();
        stale += r->stale();
        latency.merge(r->latency());
        if (r->rdy_clamped_to() > 0 && r == readers_.front()) {
          out_ << "  note: --rdy lowered to the server's max_rdy_count " << r->rdy_clamped_to()
               << '\n';
        }
      }
      sub.connections = n_readers_;
      sub.secs = secs_until(last);
      out_ << role_line("reader", sub) << '\n';
      if (o_.latency) {
        out_ << "  " << percentile_line("publish->delivery latency", latency);
        if (stale > 0) out_ << " (" << stale << " stale msgs from an earlier run ignored)";
        out_ << '\n';
      }
      if (fin_failed > 0)
        out_ << "  warning: " << fin_failed << " FINs failed (message timed out first)\n";
      result.add_role(n_writers_ > 0 ? "read_" : "", sub);
    }
    if (single_pub(mode_)) {
      result.add_percentiles("", round_trips);
    } else {
      if (n_writers_ > 0) result.add_percentiles("rtt_", round_trips);
      if (o_.latency) result.add_percentiles("", latency);
    }
    out_ << result.str() << '\n';
  }

  const Options& o_;
  Mode mode_;
  std::ostream& out_;
  std::ostream& err_;
  int n_writers_;
  int n_readers_;
  RunControl control_;
  std::vector<std::unique_ptr<Writer>> writers_;
  std::vector<std::unique_ptr<Reader>> readers_;
  std::vector<std::thread> threads_;
};

// The pub-latency client, unchanged, against the fastest possible server.
int run_pub_latency_limit(const Options& o, std::ostream& out, std::ostream& err) {
  OkResponder responder;
  auto address = responder.start();
  if (!address) {
    err << "nsq_bench: " << address.error() << '\n';
    return 1;
  }
  out << "pub-latency-limit: against a responder at " << *address
      << " that answers each PUB with OK and does nothing else (spinning, never sleeping)\n";
  Options to_responder = o;
  to_responder.nsqd_tcp_address = *address;
  NsqdBench bench(to_responder, Mode::pub_latency_limit, out, err);
  const int rc = bench.run();
  if (const std::string e = responder.stop(); !e.empty()) {
    err << "nsq_bench: responder: " << e << '\n';
    return 1;
  }
  return rc;
}

}  // namespace

int run_bench(const Options& options, Mode mode, std::ostream& out, std::ostream& err) {
  out << "nsq_bench: " << describe(options) << '\n' << std::flush;
  if (!options.deadline.empty()) {
    // Before connecting: a long wait would otherwise miss heartbeats.
    if (auto at = parse_deadline(options.deadline)) {
      out << "nsq_bench: waiting until " << options.deadline << '\n' << std::flush;
      std::this_thread::sleep_until(*at);
    }
  }
  if (mode == Mode::loopback_limit) return run_loopback(options, out, err);
  if (mode == Mode::group_commit_limit) return run_group_commit(options, out, err);
  if (mode == Mode::pub_latency_limit) return run_pub_latency_limit(options, out, err);
  NsqdBench bench(options, mode, out, err);
  return bench.run();
}

}  // namespace nsq::bench
