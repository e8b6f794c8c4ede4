#include "filename_format.h"

#include <cstdio>

namespace nsq::to_file {

bool revision_required(const FilenameSettings& s) {
  return s.gzip || s.rotate_size > 0 || s.rotate_interval.count() > 0 || s.distinct_work_dir;
}

std::string replace_all(std::string_view text, std::string_view token, std::string_view value) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t hit = text.find(token, pos);
    if (hit == std::string_view::npos || token.empty()) break;
    out.append(text.substr(pos, hit - pos));
    out.append(value);
    pos = hit + token.size();
  }
  out.append(text.substr(pos));
  return out;
}

std::string host_identifier(std::string_view identifier_flag, std::string_view hostname) {
  const std::string_view short_host = hostname.substr(0, hostname.find('.'));
  if (identifier_flag.empty()) return std::string(short_host);
  return replace_all(replace_all(identifier_flag, "<SHORT_HOST>", short_host), "<HOSTNAME>",
                     hostname);
}

tl::expected<std::string, std::string> topic_filename_template(const FilenameSettings& s,
                                                               std::string_view topic,
                                                               std::string_view hostname,
                                                               long pid) {
  std::string name = s.filename_format;
  if (revision_required(s)) {
    if (name.find("<REV>") == std::string::npos) {
      return tl::unexpected(std::string(kMissingRevError));
    }
  } else {
    name = replace_all(name, "<REV>", "");
  }
  name = replace_all(name, "<TOPIC>", topic);
  name = replace_all(name, "<HOST>", host_identifier(s.host_identifier, hostname));
  name = replace_all(name, "<PID>", std::to_string(pid));
  if (s.gzip && !(name.size() >= 3 && name.compare(name.size() - 3, 3, ".gz") == 0)) {
    name += ".gz";
  }
  return name;
}

std::string with_revision(std::string_view name, unsigned rev) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%06u", rev);
  return replace_all(name, "<REV>", buf);
}

}  // namespace nsq::to_file
