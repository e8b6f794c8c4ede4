#include "lookupd/options.h"

namespace nsq::lookupd {

Options default_options(std::string_view hostname) {
  Options opts;
  opts.broadcast_address = std::string(hostname);
  return opts;
}

}  // namespace nsq::lookupd
