#pragma once

#include <memory>

#include "nsq/daemon.h"
#include "nsqd/options.h"

namespace nsq::nsqd {

// A whole nsqd: the broker, its TCP listener and I/O threads. start() locks
// the data directory, loads nsqd.dat and binds the listeners (logs "TCP:
// listening on <addr>"); stop() accepts no new connections, closes the
// clients, flushes every queue to disk and writes nsqd.dat.
std::unique_ptr<DaemonServer> make_server(Options options, std::shared_ptr<spdlog::logger> log);

}  // namespace nsq::nsqd
