#pragma once

// The config-file reader now lives in libnsq (shared with nsqlookupd).
#include "nsq/config/config_file.h"

namespace nsq::nsqd {
namespace config = ::nsq::config;
}  // namespace nsq::nsqd
