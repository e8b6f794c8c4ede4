#include "common/version.h"

#include "nsq/config/daemon_options.h"

namespace nsq::tools {

std::string version_line(std::string_view tool) {
  return std::string(tool) + " v" + std::string(kNsqVersion);
}

std::string version_output(std::string_view tool) {
  return version_line(tool) + " (commit " + std::string(config::build_commit()) + ")";
}

std::string user_agent(std::string_view tool) {
  return std::string(tool) + "/" + std::string(kNsqVersion) + " go-nsq/" +
         std::string(kGoNsqVersion);
}

}  // namespace nsq::tools
