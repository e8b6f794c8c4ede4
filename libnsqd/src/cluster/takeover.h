#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <spdlog/logger.h>

#include "cluster/replicator.h"

namespace nsq::nsqd {
class Broker;
}

namespace nsq::nsqd::cluster {

// Hands delivery of a replicated topic over between nodes
// (docs/replication.md, "Taking over").
//
// take_over: this node starts leading `topic`. What its topic and channels
// held is dropped; the channels the delivery progress names are created
// (paused as they were) and the ledger is attached, so what happens from
// now on is recorded. Quick: publishing may resume once it returns. False
// when the topic cannot be had (shutting down).
bool take_over(Broker& broker, const std::string& topic, const Replicator::Handover& handover);

// replay, after take_over: every record of the log up to `handover.end`
// that the topic had not handed to its channels goes to the topic, and
// every one a channel had not finished goes to that channel, deferred until
// the record's defer time. Takes as long as the backlog: it stops early once
// `still_leading` says no. Returns the number of messages queued again.
std::size_t replay(Broker& broker, const std::string& topic, const Replicator::Handover& handover,
                   std::size_t max_record, spdlog::logger& log,
                   const std::function<bool()>& still_leading);

// This node stops leading `topic`: the ledger is detached and what the
// topic and its channels hold is dropped (the new leader delivers it).
void step_down(Broker& broker, const std::string& topic);

}  // namespace nsq::nsqd::cluster
