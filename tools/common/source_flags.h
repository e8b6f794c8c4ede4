#pragma once

#include <optional>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/client/consumer.h"
#include "nsq/flags/go_flags.h"

// Where a consuming tool reads from: nsqd TCP addresses (direct) or
// nsqlookupd HTTP addresses (discovery), exactly one kind.
namespace nsq::tools {

struct SourceAddresses {
  std::vector<std::string> nsqd_tcp;      // --nsqd-tcp-address, repeatable
  std::vector<std::string> lookupd_http;  // --lookupd-http-address, repeatable
};

// Registers --nsqd-tcp-address and --lookupd-http-address with the Go tools'
// usage texts. `addresses` must outlive fs.parse().
void add_source_flags(flags::FlagSet& fs, SourceAddresses* addresses);

// Go's check, word for word: "--nsqd-tcp-address or --lookupd-http-address
// required" or "use --nsqd-tcp-address or --lookupd-http-address not both";
// nullopt when exactly one kind is given.
std::optional<std::string> source_selection_error(const SourceAddresses& addresses);

// source_selection_error, then log.Fatal (exit 1) if there is one.
void require_one_source_or_exit(const SourceAddresses& addresses);

// Connects consumer to every given nsqd, then to every given lookupd (as the
// Go tools call ConnectToNSQDs then ConnectToNSQLookupds).
tl::expected<void, std::string> connect_consumer(client::Consumer& consumer,
                                                 const SourceAddresses& addresses);

}  // namespace nsq::tools
