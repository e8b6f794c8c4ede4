// nsqlookupd: flags and config file -> Options -> Server, until SIGINT/SIGTERM.
#include <utility>

#include "lookupd/options_parser.h"
#include "lookupd/server.h"
#include "nsq/daemon.h"

int main(int argc, char** argv) {
  auto parsed = nsq::lookupd::parse_lookupd_options(nsq::config::command_line_args(argc, argv));
  if (!parsed) return nsq::finish_parse(parsed.error());
  nsq::DaemonProcess process("nsqlookupd", parsed->log_prefix, parsed->log_level);
  return process.serve(*nsq::lookupd::make_server(std::move(*parsed), process.log()));
}
