// nsqd: flags and config file -> Options -> Server, until SIGINT/SIGTERM.
#include <utility>

#include <spdlog/spdlog.h>

#include "nsq/daemon.h"
#include "nsqd/options_parser.h"
#include "nsqd/server.h"

int main(int argc, char** argv) {
  auto parsed = nsq::nsqd::parse_nsqd_options(nsq::config::command_line_args(argc, argv));
  if (!parsed) return nsq::finish_parse(parsed.error());
  nsq::DaemonProcess process("nsqd", parsed->log_prefix, parsed->log_level);
  process.log()->info("ID: {}", parsed->node_id);
  return process.serve(*nsq::nsqd::make_server(std::move(*parsed), process.log()));
}
