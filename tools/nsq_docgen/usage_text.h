#pragma once

#include <string>
#include <string_view>
#include <vector>

// Reads back the usage text every nsq-cpp program prints for --help (Go's
// flag.PrintDefaults, nsq::flags::FlagSet::defaults), so the man pages and
// the /etc/nsq config files are made from the same option tables as --help.
namespace nsq::docgen {

// One flag as --help shows it.
struct FlagDoc {
  std::string name;          // "tcp-address"
  std::string type;          // "string", "int", "duration", "value"...; empty for a bool
  std::string usage;         // the description, without the default
  std::string default_text;  // Go's text ("\"0.0.0.0:4150\"", "2s"); empty: the zero value
};

// The flags of a "Usage of <program>:" text, in its order (sorted by name).
// A trailing "(default X)" is taken as the default only when X has the form
// of the flag's type, so a usage that itself ends in "(default 0, i.e.,
// unlimited)" keeps its words.
std::vector<FlagDoc> parse_go_usage(std::string_view text);

}  // namespace nsq::docgen
