#pragma once

#include <span>
#include <string>

#include "core/message.h"

namespace nsq::nsqd {

// Cluster mode, on a topic's leader: what the topic and its channels tell
// about delivery, so that a node taking over delivers what this one had not
// finished (docs/replication.md, "Channel progress"). A topic holds one only
// while this node leads it, and hands it to its channels.
//
// Thread safety: every member may be called from any thread, also with the
// topic's or a channel's lock held: an implementation locks nothing else and
// calls nothing back.
class DeliveryLedger {
 public:
  virtual ~DeliveryLedger() = default;

  // The topic gave `messages` to every channel it has (or dropped them).
  virtual void handed(std::span<const MessageRef> messages) = 0;
  // The topic dropped `messages` before any channel had them (/topic/empty).
  virtual void dropped(std::span<const MessageRef> messages) = 0;
  // The channel is done with the message: FIN'd, or left out by sampling.
  virtual void finished(const std::string& channel, const Message& message) = 0;
  // A channel appeared: it owes nothing the topic handed out before.
  virtual void channel_added(const std::string& channel, bool paused) = 0;
  // Everything the channel held was dropped (/channel/empty).
  virtual void channel_emptied(const std::string& channel) = 0;
  virtual void channel_removed(const std::string& channel) = 0;
  virtual void channel_paused(const std::string& channel, bool paused) = 0;
  virtual bool has_channel(const std::string& channel) const = 0;
};

}  // namespace nsq::nsqd
