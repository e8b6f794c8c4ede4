#include "protocol/command_line.h"

namespace nsq::nsqd::protocol {

LineScan scan_line(std::string_view buffered, std::size_t max_line) noexcept {
  LineScan scan;
  // Only the first max_line bytes may hold the '\n' (bufio's buffer size).
  std::size_t nl = buffered.substr(0, max_line).find('\n');
  if (nl == std::string_view::npos) {
    scan.status = buffered.size() >= max_line ? LineStatus::too_long : LineStatus::need_more;
    return scan;
  }
  scan.status = LineStatus::line;
  scan.consumed = nl + 1;
  scan.line = buffered.substr(0, nl);
  if (!scan.line.empty() && scan.line.back() == '\r') scan.line.remove_suffix(1);
  return scan;
}

void split_command(std::string_view line, CommandLine& out) {
  out.params.clear();
  out.name = line.substr(0, line.find(' '));
  if (out.name.size() == line.size()) return;
  std::string_view rest = line.substr(out.name.size() + 1);
  for (;;) {
    std::size_t sp = rest.find(' ');
    out.params.push_back(rest.substr(0, sp));
    if (sp == std::string_view::npos) break;
    rest.remove_prefix(sp + 1);
  }
}

}  // namespace nsq::nsqd::protocol
