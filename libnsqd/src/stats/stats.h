#pragma once

// nsqd's statistics are the /stats document's model, shared with nsq_stat
// and nsqadmin: code in nsq::nsqd names its types stats::Snapshot,
// stats::Topic, ... (nsq::stats). Kept so the broker's files that include
// this header need not change; new code includes nsq/stats/model.h.
#include "nsq/stats/model.h"
