// nsqd's per-command and per-message protocol work, without sockets: the V2
// command line scan and split, the MPUB body parse, and message frame
// encoding (what ClientConn::pump appends for each delivery).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "nsq/id_generator.h"
#include "nsq/message.h"
#include "nsq/mpub.h"
#include "protocol/command_line.h"

namespace {

using namespace nsq;

// A consumer's steady stream: FIN lines back to back, as one socket read
// holds them; each iteration scans and splits all of them.
void BM_ScanSplitFin(benchmark::State& state) {
  std::string buf;
  const int lines = 256;
  for (int i = 0; i < lines; ++i) {
    MessageId id = format_message_id(static_cast<std::uint64_t>(i));
    buf += "FIN " + std::string(id.data(), id.size()) + "\n";
  }
  nsqd::protocol::CommandLine cmd;
  for (auto _ : state) {
    std::string_view rest = buf;
    for (;;) {
      auto scan = nsqd::protocol::scan_line(rest);
      if (scan.status != nsqd::protocol::LineStatus::line) break;
      nsqd::protocol::split_command(scan.line, cmd);
      benchmark::DoNotOptimize(cmd.params.data());
      rest.remove_prefix(scan.consumed);
    }
  }
  state.SetItemsProcessed(state.iterations() * lines);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(buf.size()));
}
BENCHMARK(BM_ScanSplitFin);

// One MPUB body of `n` messages of 100 bytes: count, then sized bodies.
void BM_ParseMpubBody(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::string message(100, 'm');
  std::vector<std::string_view> bodies(static_cast<std::size_t>(n), message);
  std::string body;
  append_mpub_body(body, bodies);
  MpubLimits limits;
  for (auto _ : state) {
    auto parsed = parse_mpub_body(body, limits);
    benchmark::DoNotOptimize(parsed);
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(body.size()));
}
BENCHMARK(BM_ParseMpubBody)->Arg(1)->Arg(200);

// Message frames of `size`-byte bodies appended to one output buffer, 256 at
// a time (ClientConn's largest pump batch), the buffer reused as the write
// loop reuses it.
void BM_EncodeMessageFrames(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const int batch = 256;
  std::string body(size, 'b');
  MessageHeader header{1'700'000'000'000'000'000, 1, format_message_id(42)};
  std::string out;
  for (auto _ : state) {
    out.clear();
    for (int i = 0; i < batch; ++i) append_message_frame(out, header, body);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out.size()));
}
BENCHMARK(BM_EncodeMessageFrames)->Arg(100)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
