#pragma once

#include <memory>

#include "lookupd/options.h"
#include "nsq/daemon.h"

namespace nsq::lookupd {

// A whole nsqlookupd: the registration DB, the TCP (V1) listener and the
// HTTP API. start() logs "TCP: listening on <addr>" and "HTTP: listening on
// <addr>"; stop() closes the listeners and every connection.
std::unique_ptr<DaemonServer> make_server(Options options, std::shared_ptr<spdlog::logger> log);

}  // namespace nsq::lookupd
