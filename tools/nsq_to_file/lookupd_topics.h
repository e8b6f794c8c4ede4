#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace nsq::to_file {

// The "topics" of an nsqlookupd /topics body.
tl::expected<std::vector<std::string>, std::string> parse_topics_json(std::string_view body);

// Go's clusterinfo.GetLookupdTopics: GET http://<lookupd>/topics of each
// address, the union of their topics (sorted). Any failing lookupd makes it
// an error (Go returns a partial error, which nsq_to_file does not use).
tl::expected<std::vector<std::string>, std::string> fetch_lookupd_topics(
    const std::vector<std::string>& lookupds, std::chrono::nanoseconds connect_timeout,
    std::chrono::nanoseconds request_timeout);

}  // namespace nsq::to_file
