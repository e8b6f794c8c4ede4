#pragma once

#include <string>
#include <vector>

#include "usage_text.h"

// A program's man page (section 1, roff for man(7)) from its --help flags.
namespace nsq::docgen {

struct ManPage {
  std::string program;                   // "nsqd"
  std::string summary;                   // the NAME line after "nsqd \-"
  std::vector<std::string> description;  // its paragraphs
  std::string source;                    // the footer's source, "nsq-cpp 1.3.0"
  std::string config_file;               // FILES: "/etc/nsq/nsqd.conf"; empty for none
  std::vector<std::string> see_also;     // other pages, "nsqlookupd(1)"
};

// The page. Flags are shown as --name (Go's flag package takes one or two
// dashes); machine-dependent defaults (the build host's name) are left out.
std::string render_man_page(const ManPage& page, const std::vector<FlagDoc>& flags);

// Text made safe for roff: backslashes, dashes and lines starting with a
// control character.
std::string roff_escape(const std::string& text);

}  // namespace nsq::docgen
