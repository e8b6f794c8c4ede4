#pragma once

#include <map>
#include <string>
#include <vector>

#include "usage_text.h"

// A daemon's TOML config file (what Go nsqd/nsqlookupd/nsqadmin read with
// --config) listing every option from its --help: each commented out with
// its default and its one-line description, except those `active` sets.
namespace nsq::docgen {

struct ConfigTemplate {
  std::string program;  // "nsqd"
  std::string path;     // where it is installed, "/etc/nsq/nsqd.conf"
  std::string source;   // "nsq-cpp 1.3.0"
  // key -> TOML value written uncommented (the package's own settings).
  std::map<std::string, std::string> active;
};

// The config file key of a flag (Go's cfg tag): the flag's name with '_' for
// '-', or the name Go gave it ("lookupd-tcp-address" ->
// "nsqlookupd_tcp_addresses").
std::string config_key(const std::string& flag);

// The flag's default as a TOML value ("\"0.0.0.0:4150\"", "2500", "\"2s\"",
// "[]").
std::string toml_default(const FlagDoc& flag);

// Whether the flag belongs in a config file: not the command flags
// (--version, --config), nor deprecated no-ops.
bool is_config_option(const FlagDoc& flag);

std::string render_config(const ConfigTemplate& config, const std::vector<FlagDoc>& flags);

}  // namespace nsq::docgen
