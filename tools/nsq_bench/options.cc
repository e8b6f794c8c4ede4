#include "options.h"

#include <ctime>

#include "nsq/flags/go_duration.h"
#include "nsq/names.h"

namespace nsq::bench {

void register_flags(flags::FlagSet& fs, Options& o) {
  fs.add_string("mode", &o.mode,
                "writer, reader, both, pub-latency, pub-latency-limit, loopback-limit or "
                "group-commit-limit");
  fs.add_string("nsqd-tcp-address", &o.nsqd_tcp_address, "<addr>:<port> of the nsqd to connect to");
  fs.add_string("topic", &o.topic, "topic to publish to / subscribe on");
  fs.add_string("channel", &o.channel, "channel to subscribe on");
  fs.add_int("size", &o.size, "size of each message body in bytes");
  fs.add_int("batch-size", &o.batch_size, "messages per MPUB (1 sends PUB)");
  fs.add_duration("runfor", &o.runfor, "duration of time to run, e.g. 10s");
  fs.add_int("writers", &o.writers, "number of writer connections");
  fs.add_int("connections", &o.writers, "alias of --writers");
  fs.add_int("readers", &o.readers, "number of reader connections");
  fs.add_int("rdy", &o.rdy, "RDY count per reader connection");
  fs.add_int("pipeline", &o.pipeline, "publish requests in flight per writer connection");
  fs.add_string("deadline", &o.deadline, "local time to start the run at, \"2006-01-02 15:04:05\"");
  fs.add_bool("latency", &o.latency,
              "stamp bodies and report publish->delivery latency percentiles");
  fs.add_int64("rate", &o.rate, "messages per second over all writers (0 = as fast as possible)");
  fs.add_bool("pub-latency", &o.pub_latency,
              "one connection, PUB one message, wait for OK: round-trip percentiles");
  fs.add_bool("progress", &o.progress, "print rates every second");
  fs.add_bool("identify", &o.identify, "writers send IDENTIFY before publishing");
  fs.add_int64("output-buffer-size", &o.output_buffer_size,
               "reader IDENTIFY output_buffer_size (0 = server default)");
  fs.add_duration("output-buffer-timeout", &o.output_buffer_timeout,
                  "reader IDENTIFY output_buffer_timeout (0 = server default, negative = none)");
  fs.add_duration("idle-exit", &o.idle_exit, "readers stop after this long without a message");
  fs.add_duration("drain", &o.drain,
                  "how long readers/writers may finish after the writers' run time");
  fs.add_bool("tls", &o.tls, "negotiate TLS (tls_v1) on every connection");
  fs.add_bool("snappy", &o.snappy, "negotiate snappy compression on every connection");
  fs.add_bool("deflate", &o.deflate, "negotiate deflate compression on every connection");
  fs.add_int("deflate-level", &o.deflate_level, "deflate level to ask for (1-9)");
  fs.add_string("data-path", &o.data_path,
                "group-commit-limit: directory for its scratch file (default: the temp directory)");
}

tl::expected<Mode, std::string> validate(const Options& o) {
  Mode mode{};
  if (o.pub_latency || o.mode == "pub-latency") {
    mode = Mode::pub_latency;
  } else if (o.mode == "writer") {
    mode = Mode::writer;
  } else if (o.mode == "reader") {
    mode = Mode::reader;
  } else if (o.mode == "both") {
    mode = Mode::both;
  } else if (o.mode == "pub-latency-limit") {
    mode = Mode::pub_latency_limit;
  } else if (o.mode == "loopback-limit") {
    mode = Mode::loopback_limit;
  } else if (o.mode == "group-commit-limit") {
    mode = Mode::group_commit_limit;
  } else {
    return tl::unexpected(
        "invalid --mode \"" + o.mode +
        "\": want writer, reader, both, pub-latency, pub-latency-limit, loopback-limit or "
        "group-commit-limit");
  }
  if (o.runfor <= std::chrono::nanoseconds::zero())
    return tl::unexpected(std::string("--runfor must be > 0"));
  if (o.snappy && o.deflate)
    return tl::unexpected(std::string("--snappy and --deflate are exclusive"));
  if (o.deflate_level < 1 || o.deflate_level > 9)
    return tl::unexpected(std::string("--deflate-level must be [1,9]"));
  if (mode == Mode::loopback_limit) return mode;
  if (mode == Mode::pub_latency_limit && (o.identify || o.tls || o.snappy || o.deflate)) {
    return tl::unexpected(
        std::string("--mode=pub-latency-limit answers PUB only: no --identify, --tls, --snappy "
                    "or --deflate"));
  }
  if (!is_valid_topic_name(o.topic)) return tl::unexpected("invalid --topic \"" + o.topic + "\"");
  if (!is_valid_channel_name(o.channel))
    return tl::unexpected("invalid --channel \"" + o.channel + "\"");
  if (o.size < 1) return tl::unexpected(std::string("--size must be >= 1"));
  if (o.latency && o.size < 8)
    return tl::unexpected(std::string("--latency needs --size >= 8 (the timestamp)"));
  if (o.batch_size < 1) return tl::unexpected(std::string("--batch-size must be >= 1"));
  if (o.writers < 1) return tl::unexpected(std::string("--writers must be >= 1"));
  if (o.readers < 1) return tl::unexpected(std::string("--readers must be >= 1"));
  if (o.rdy < 1) return tl::unexpected(std::string("--rdy must be >= 1"));
  if (o.pipeline < 1) return tl::unexpected(std::string("--pipeline must be >= 1"));
  if (o.rate < 0) return tl::unexpected(std::string("--rate must be >= 0"));
  if (o.idle_exit <= std::chrono::nanoseconds::zero())
    return tl::unexpected(std::string("--idle-exit must be > 0"));
  if (o.drain < std::chrono::nanoseconds::zero())
    return tl::unexpected(std::string("--drain must be >= 0"));
  if (!o.deadline.empty()) {
    if (auto d = parse_deadline(o.deadline); !d) return tl::unexpected(d.error());
  }
  return mode;
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::writer:
      return "writer";
    case Mode::reader:
      return "reader";
    case Mode::both:
      return "both";
    case Mode::pub_latency:
      return "pub-latency";
    case Mode::pub_latency_limit:
      return "pub-latency-limit";
    case Mode::loopback_limit:
      return "loopback-limit";
    case Mode::group_commit_limit:
      return "group-commit-limit";
  }
  return "?";
}

std::string describe(const Options& o) {
  auto b = [](bool v) { return v ? "true" : "false"; };
  std::string s;
  s += "--mode=" + o.mode;
  s += " --nsqd-tcp-address=" + o.nsqd_tcp_address;
  s += " --topic=" + o.topic;
  s += " --channel=" + o.channel;
  s += " --size=" + std::to_string(o.size);
  s += " --batch-size=" + std::to_string(o.batch_size);
  s += " --runfor=" + flags::format_go_duration(o.runfor);
  s += " --writers=" + std::to_string(o.writers);
  s += " --readers=" + std::to_string(o.readers);
  s += " --rdy=" + std::to_string(o.rdy);
  s += " --pipeline=" + std::to_string(o.pipeline);
  s += " --rate=" + std::to_string(o.rate);
  s += std::string(" --latency=") + b(o.latency);
  s += std::string(" --pub-latency=") + b(o.pub_latency);
  s += std::string(" --identify=") + b(o.identify);
  s += " --output-buffer-size=" + std::to_string(o.output_buffer_size);
  s += " --output-buffer-timeout=" + flags::format_go_duration(o.output_buffer_timeout);
  s += " --idle-exit=" + flags::format_go_duration(o.idle_exit);
  s += " --drain=" + flags::format_go_duration(o.drain);
  if (!o.deadline.empty()) s += " --deadline=\"" + o.deadline + "\"";
  // Only when used, so existing reports read as before.
  if (o.tls) s += " --tls=true";
  if (o.snappy) s += " --snappy=true";
  if (o.deflate) s += " --deflate=true --deflate-level=" + std::to_string(o.deflate_level);
  if (!o.data_path.empty()) s += " --data-path=" + o.data_path;
  return s;
}

tl::expected<std::chrono::system_clock::time_point, std::string> parse_deadline(
    const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') {
    return tl::unexpected("invalid --deadline \"" + text + "\": want \"2006-01-02 15:04:05\"");
  }
  tm.tm_isdst = -1;  // let mktime decide, as the text has no zone
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1))
    return tl::unexpected("invalid --deadline \"" + text + "\"");
  return std::chrono::system_clock::from_time_t(t);
}

}  // namespace nsq::bench
