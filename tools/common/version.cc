#include "common/version.h"

namespace nsq::tools {

std::string version_line(std::string_view tool) {
  return std::string(tool) + " v" + std::string(kNsqVersion);
}

std::string user_agent(std::string_view tool) {
  return std::string(tool) + "/" + std::string(kNsqVersion) + " go-nsq/" +
         std::string(kGoNsqVersion);
}

}  // namespace nsq::tools
