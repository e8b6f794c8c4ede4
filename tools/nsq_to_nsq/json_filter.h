#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nsq::tools::to_nsq_bridge {

// What to do with one message under --require-json-field/-value and
// --whitelist-json-field (nsq_to_nsq v1.3.0's rules, spec/tools.md §5).
struct FilterDecision {
  enum class Action {
    publish,  // send `body`
    drop,     // FIN without sending
    requeue,  // REQ with backoff
  };
  Action action = Action::publish;
  std::string body;
  std::string log;  // a line to log ("ERROR: ..."), or empty
};

// @par Thread Safety: immutable after construction; apply() from any thread.
class JsonFilter {
 public:
  JsonFilter(std::string require_field, std::string require_value,
             std::vector<std::string> whitelist_fields);

  // False when no JSON option is set: bodies pass untouched, unparsed.
  bool active() const { return !require_field_.empty() || !whitelist_.empty(); }

  FilterDecision apply(std::string_view body) const;

 private:
  const std::string require_field_;
  const std::string require_value_;
  const std::vector<std::string> whitelist_;
  bool value_is_number_ = false;  // require_value_ parses as a float (strconv.ParseFloat)
  double value_number_ = 0;
};

}  // namespace nsq::tools::to_nsq_bridge
