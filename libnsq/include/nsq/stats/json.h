#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "nsq/stats/model.h"

// nsqd's GET /stats?format=json document, written by nsqd and read by
// nsq_stat and nsqadmin (and by anything reading Go nsqd v1.3.0's).
namespace nsq::stats {

// The body Go nsqd v1.3.0 writes for s, byte for byte: compact, keys in Go's
// struct order, strings and floats as Go's encoding/json writes them
// (nsq/json/writer.h), nil slices as null (Snapshot's flags say which).
std::string write_stats_json(const Snapshot& s);

// As lenient as the tools that read it: an absent key or one of the wrong
// type keeps the model's default, a number fits the member's type (a
// fraction is dropped), unknown keys are ignored. "topics":null sets
// topics_null, "percentiles":null leaves configured false, a channel's
// "clients":null clears include_clients. The error (text) is for JSON that
// does not parse or is not an object: "invalid JSON: <reason>".
tl::expected<Snapshot, std::string> parse_stats_json(std::string_view body);

}  // namespace nsq::stats
