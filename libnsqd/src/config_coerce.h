#pragma once

// The config-value coercions now live in libnsq (shared with nsqlookupd).
#include "nsq/config/coerce.h"
#include "config_file.h"
