#pragma once

#include <string>

#include "nsq/json/writer.h"
#include "nsq/stats/json.h"
#include "stats/stats.h"

// GET /stats?format=json: written by the shared model's writer
// (nsq/stats/json.h), byte for byte as Go nsqd v1.3.0. nsq/json/writer.h
// stays included for the callers that take json::append_string from here.
namespace nsq::nsqd {

inline std::string render_stats_json(const stats::Snapshot& s) {
  return stats::write_stats_json(s);
}

}  // namespace nsq::nsqd
