#include "tail_printer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/go_log.h"
#include "common/process_exit.h"

namespace nsq::tools::tail {
namespace {

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

TailPrinter::TailPrinter(std::string topic, bool print_topic, int total_messages,
                         std::mutex* stdout_mu)
    : prefix_(print_topic ? topic + " | " : ""),
      total_messages_(total_messages),
      stdout_mu_(stdout_mu) {}

client::HandlerResult TailPrinter::handle(client::Message& message) {
  std::string line;
  line.reserve(prefix_.size() + message.body().size() + 1);
  line += prefix_;
  line += message.body();
  line += '\n';
  std::lock_guard lock(*stdout_mu_);
  ++shown_;
  if (!write_all(STDOUT_FILENO, line)) {
    log_fatal(std::string("ERROR: failed to write to os.Stdout - write /dev/stdout: ") +
              std::strerror(errno));
  }
  if (total_messages_ > 0 && shown_ >= total_messages_) exit_now(0);
  return {};
}

}  // namespace nsq::tools::tail
