#include "loopback.h"

#include <string>
#include <thread>
#include <vector>

#include "clock.h"

namespace nsq::bench {
namespace {

constexpr std::size_t kWriteSize = 64 * 1024;
constexpr std::size_t kReadSize = 256 * 1024;

}  // namespace

Expected<LoopbackResult> measure_loopback(std::chrono::nanoseconds duration) {
  auto listener = listen_loopback();
  if (!listener) return tl::unexpected(listener.error());
  auto sender = connect_tcp("127.0.0.1:" + std::to_string(listener->port));
  if (!sender) return tl::unexpected(sender.error());
  auto receiver = accept_one(*listener);
  if (!receiver) return tl::unexpected(receiver.error());

  std::string send_error;
  std::thread send_thread([&] {
    const std::string chunk(kWriteSize, 'a');
    const auto end = SteadyClock::now() + duration;
    while (SteadyClock::now() < end) {
      if (auto w = sender->write_all(chunk); !w) {
        send_error = w.error();
        break;
      }
    }
    sender->shutdown_write();  // EOF tells the receiver the run is over
  });

  LoopbackResult result;
  std::vector<char> buf(kReadSize);
  std::string recv_error;
  SteadyClock::time_point first{};
  SteadyClock::time_point last{};
  for (;;) {
    auto n = receiver->read_some(buf, std::chrono::seconds(1));
    if (!n) {
      if (n.error() != kPeerClosed) recv_error = n.error();
      break;
    }
    if (*n == 0) continue;
    last = SteadyClock::now();
    if (result.bytes == 0) first = last;
    result.bytes += *n;
  }
  send_thread.join();
  if (!send_error.empty()) return tl::unexpected("loopback sender: " + send_error);
  if (!recv_error.empty()) return tl::unexpected("loopback receiver: " + recv_error);
  result.secs = std::chrono::duration<double>(last - first).count();
  return result;
}

}  // namespace nsq::bench
