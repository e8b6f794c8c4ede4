#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

// The V2 protocol's command framing without I/O: where a command line ends
// in the read buffer, and how it splits into a name and parameters. Bodies
// (the 4-byte size and its bytes after PUB, MPUB, DPUB, IDENTIFY and AUTH)
// are read by each command's handler, which knows its own limits.
namespace nsq::nsqd::protocol {

// Go nsqd reads lines with a bufio.Reader of this size: a line that does not
// fit, '\n' included, ends the connection without a reply.
inline constexpr std::size_t kMaxLine = 16 * 1024;

enum class LineStatus {
  line,       // a complete line is at the start of the buffer
  need_more,  // no '\n' yet; read more and scan again
  too_long,   // no '\n' within max_line bytes: close the connection
};

struct LineScan {
  LineStatus status = LineStatus::need_more;
  // Bytes the line takes in the buffer, '\n' included (status line only).
  std::size_t consumed = 0;
  // The line without its '\n' and one trailing '\r'; a view into the buffer.
  std::string_view line;
};

// Looks for one complete command line at the start of `buffered`.
LineScan scan_line(std::string_view buffered, std::size_t max_line = kMaxLine) noexcept;

// A command line split as Go's bytes.Split(line, " "): the name is up to the
// first space, then one parameter per space-separated field, empty ones kept
// ("PUB  t" has params {"", "t"}). Views into the line passed to split.
struct CommandLine {
  std::string_view name;
  std::vector<std::string_view> params;
};

// Fills `out` (its params vector is reused across calls).
void split_command(std::string_view line, CommandLine& out);

}  // namespace nsq::nsqd::protocol
