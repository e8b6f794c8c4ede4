#include "common/client_option_flags.h"

namespace nsq::tools {

void add_client_option_flag(flags::FlagSet& fs, const std::string& name, client::Config* config,
                            const std::string& usage) {
  flags::FlagValue value;
  value.type_name = "value";
  value.set = [config](std::string_view text) { return client::apply_option_flag(*config, text); };
  fs.add(name, usage, std::move(value));
}

}  // namespace nsq::tools
