// to_nsq: flags -> ToNsqOptions -> read stdin, publish every chunk to every
// nsqd (synchronous PUB each), until EOF or SIGINT/SIGTERM.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "chunk_splitter.h"
#include "common/go_log.h"
#include "common/process_exit.h"
#include "common/termination_signals.h"
#include "nsq/client/producer.h"
#include "nsq/go_logger.h"
#include "to_nsq_options.h"
#include "token_bucket.h"

namespace {

using nsq::client::Producer;
using nsq::tools::TerminationSignals;

void stop_all(std::vector<std::unique_ptr<Producer>>& producers) {
  for (auto& producer : producers) producer->stop();
}

// Publishes one message to every producer, waiting for each answer; a
// failure ends the program as Go's log.Fatal.
void publish_everywhere(std::vector<std::unique_ptr<Producer>>& producers, const std::string& topic,
                        const std::string& body) {
  for (auto& producer : producers) {
    if (auto r = producer->publish(topic, body); !r) nsq::tools::log_fatal(r.error());
  }
}

// Sleeps `wait`, or returns false early when a signal arrives.
bool sleep_unless_signalled(TerminationSignals& signals, std::chrono::steady_clock::duration wait) {
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
  pollfd p{signals.fd(), POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(ms)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nsq::tools;
  TerminationSignals signals;  // before any thread exists
  to_nsq::ToNsqOptions options = to_nsq::parse_to_nsq_options(argc, argv);
  if (auto valid = options.config.validate(); !valid) log_fatal(valid.error());

  // One producer per distinct address (Go keys them by address in a map).
  auto logger = nsq::make_go_client_logger("to_nsq");
  std::vector<std::unique_ptr<Producer>> producers;
  std::set<std::string> seen;
  for (const auto& address : options.nsqd_tcp) {
    if (seen.insert(address).second) {
      producers.push_back(std::make_unique<Producer>(address, options.config, logger));
    }
  }

  std::optional<to_nsq::TokenBucket> bucket;
  if (options.rate >= 1) {
    log_line("Throttling messages rate to max:" + std::to_string(options.rate) + "/second");
    bucket.emplace(options.rate, std::chrono::steady_clock::now());
  }
  auto publish = [&](const std::string& body) -> bool {
    if (bucket) {
      auto wait = bucket->wait_time(std::chrono::steady_clock::now());
      if (wait > wait.zero() && !sleep_unless_signalled(signals, wait)) return false;
      bucket->take(std::chrono::steady_clock::now());
    }
    publish_everywhere(producers, options.topic, body);
    return true;
  };

  to_nsq::ChunkSplitter splitter(options.delimiter);
  char buf[65536];
  for (;;) {
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {signals.fd(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      log_fatal(std::string("poll: ") + std::strerror(errno));
    }
    if (fds[1].revents != 0) break;  // SIGINT/SIGTERM: stop now, as the Go tool
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      log_fatal(std::string("read /dev/stdin: ") + std::strerror(errno));
    }
    if (n == 0) {
      if (auto last = splitter.finish()) publish(*last);
      break;
    }
    splitter.put(std::string_view(buf, static_cast<std::size_t>(n)));
    bool stopped = false;
    while (auto message = splitter.next()) {
      if (!publish(*message) || signals.next()) {
        stopped = true;
        break;
      }
    }
    if (stopped) break;
  }
  stop_all(producers);
  exit_now(0);
}
