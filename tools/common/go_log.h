#pragma once

#include <string_view>

// The Go tools' own messages go through Go's standard `log` package:
// "2006/01/02 15:04:05 text\n" on stderr, local time. log.Fatal is that line
// followed by exit(1). (The client library's lines use
// nsq::make_go_client_logger, nsq/go_logger.h.)
namespace nsq::tools {

// One line; a trailing '\n' in text is not doubled (as Go's log).
void log_line(std::string_view text);

// log.Fatal: the line, then exit code 1.
[[noreturn]] void log_fatal(std::string_view text);

}  // namespace nsq::tools
