#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <tl/expected.hpp>

#include "nsq/flags/go_flags.h"

namespace nsq::bench {

enum class Mode {
  writer,
  reader,
  both,
  pub_latency,
  pub_latency_limit,
  loopback_limit,
  group_commit_limit
};

// Every nsq_bench setting, defaults as NSQ's bench_writer / bench_reader
// where those have the flag.
struct Options {
  std::string mode =
      "writer";  // writer|reader|both|pub-latency[-limit]|loopback-limit|group-commit-limit
  std::string nsqd_tcp_address = "127.0.0.1:4150";  // host:port of the nsqd under test
  std::string topic = "sub_bench";
  std::string channel = "ch";
  int size = 100;        // message body bytes
  int batch_size = 200;  // messages per MPUB; 1 sends PUB
  std::chrono::nanoseconds runfor = std::chrono::seconds(10);
  int writers = 1;   // writer connections (also --connections)
  int readers = 1;   // reader connections
  int rdy = 2500;    // RDY per reader connection (clamped to the server's max_rdy_count)
  int pipeline = 1;  // publish requests in flight per writer; 1 waits for each OK as bench_writer
  std::string
      deadline;  // "2006-01-02 15:04:05" local time to start at, to line up several processes
  bool latency = false;            // stamp bodies and report publish->delivery latency in readers
  int64_t rate = 0;                // messages/s over all writers; 0 = as fast as possible
  bool pub_latency = false;        // same as --mode=pub-latency
  bool progress = false;           // a line per second
  bool identify = false;           // writers send IDENTIFY too (bench_writer does not)
  int64_t output_buffer_size = 0;  // reader IDENTIFY; 0 = server default
  // Reader IDENTIFY; 0 = server default, negative = no timed flush (-1 on the wire).
  std::chrono::nanoseconds output_buffer_timeout{0};
  // Readers stop once no message came for this long (after the writers, in
  // both mode; after the first message, in reader mode).
  std::chrono::nanoseconds idle_exit = std::chrono::seconds(1);
  // In both mode, how long readers may go on after the writers stopped, and
  // how long writers wait for their last OKs.
  std::chrono::nanoseconds drain = std::chrono::seconds(5);
  // IDENTIFY upgrades for every connection (writers then IDENTIFY too).
  bool tls = false;
  bool snappy = false;
  bool deflate = false;
  int deflate_level = 6;
  // group-commit-limit: where its scratch file goes (the file system under
  // test, e.g. nsqd's --data-path); empty = the temp directory.
  std::string data_path;
};

void register_flags(flags::FlagSet& fs, Options& options);

// Mode from the flags, after checking they make sense together. The error
// is the text shown to the user.
tl::expected<Mode, std::string> validate(const Options& options);

std::string_view mode_name(Mode mode);

// The settings used, one "--name=value" each, for the report header.
std::string describe(const Options& options);

// --deadline text to a wall-clock time.
tl::expected<std::chrono::system_clock::time_point, std::string> parse_deadline(
    const std::string& text);

}  // namespace nsq::bench
