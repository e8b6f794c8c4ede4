#include "commands.h"

#include "nsq/endian.h"
#include "nsq/mpub.h"

namespace nsq::client::commands {
namespace {

std::string with_body(std::string line, std::string_view body) {
  line.push_back('\n');
  append_u32be(line, static_cast<uint32_t>(body.size()));
  line.append(body);
  return line;
}

std::string with_id(std::string_view verb, const MessageId& id, std::string_view tail = {}) {
  std::string out(verb);
  out.push_back(' ');
  out.append(to_string_view(id));
  out.append(tail);
  out.push_back('\n');
  return out;
}

}  // namespace

std::string pub(std::string_view topic, std::string_view body) {
  return with_body("PUB " + std::string(topic), body);
}

std::string mpub(std::string_view topic, const std::vector<std::string>& bodies) {
  std::vector<std::string_view> views(bodies.begin(), bodies.end());
  std::string body;
  append_mpub_body(body, views);
  return with_body("MPUB " + std::string(topic), body);
}

std::string dpub(std::string_view topic, std::chrono::milliseconds delay, std::string_view body) {
  return with_body("DPUB " + std::string(topic) + " " + std::to_string(delay.count()), body);
}

std::string sub(std::string_view topic, std::string_view channel) {
  return "SUB " + std::string(topic) + " " + std::string(channel) + "\n";
}

std::string rdy(int64_t count) { return "RDY " + std::to_string(count) + "\n"; }

std::string fin(const MessageId& id) { return with_id("FIN", id); }

std::string req(const MessageId& id, std::chrono::milliseconds delay) {
  return with_id("REQ", id, " " + std::to_string(delay.count()));
}

std::string touch(const MessageId& id) { return with_id("TOUCH", id); }

}  // namespace nsq::client::commands
