#include "cluster/takeover.h"

#include <chrono>
#include <vector>

#include "cluster/log_record.h"
#include "core/broker.h"

namespace nsq::nsqd::cluster {
namespace {

// Drops what the topic and its channels hold, without telling a ledger.
void drop_everything(Topic& topic) {
  topic.set_ledger(nullptr);
  (void)topic.empty();
  for (const auto& ch : topic.channels()) (void)ch->empty();
}

std::chrono::milliseconds delay_until(std::int64_t defer_until_ms) {
  if (defer_until_ms == 0) return {};
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return std::max(std::chrono::milliseconds(defer_until_ms) - now, std::chrono::milliseconds(0));
}

}  // namespace

bool take_over(Broker& broker, const std::string& name, const Replicator::Handover& handover) {
  auto topic = broker.get_or_create_topic(name);
  if (!topic || !handover.log) return false;
  drop_everything(*topic);
  for (const auto& [channel_name, c] : handover.progress.channels) {
    auto ch = topic->get_or_create_channel(channel_name);
    if (!ch) return false;
    if (c.paused) {
      ch->pause();
    } else {
      ch->unpause();
    }
  }
  topic->set_ledger(handover.ledger);
  return true;
}

std::size_t replay(Broker& broker, const std::string& name, const Replicator::Handover& handover,
                   std::size_t max_record, spdlog::logger& log,
                   const std::function<bool()>& still_leading) {
  auto topic = broker.find_topic(name);
  if (!topic || !handover.log) return 0;
  const TopicProgress& progress = handover.progress;
  std::vector<std::pair<std::shared_ptr<Channel>, const OffsetSet*>> channels;
  for (const auto& [channel_name, c] : progress.channels) {
    if (auto ch = topic->find_channel(channel_name))
      channels.emplace_back(std::move(ch), &c.finished);
  }
  std::size_t queued = 0;
  std::uint64_t offset = std::max(progress.low_water(), handover.log->start());
  while (offset < handover.end && still_leading()) {
    auto bytes = handover.log->read(offset, std::max<std::size_t>(max_record, 1 << 20));
    if (!bytes) {
      log.error("TOPIC({}): cannot read the replica log at {} - {}", name, offset,
                bytes.error().message());
      break;
    }
    const ParsedRecords parsed = parse_records(*bytes, max_record);
    if (parsed.records.empty()) {
      log.error("TOPIC({}): the replica log has no whole record at {}", name, offset);
      break;
    }
    DiskWrites spill;
    for (const LogRecord& r : parsed.records) {
      const std::uint64_t at = offset;
      offset += kLogRecordHeader + r.message.size();
      if (at >= handover.end) break;
      auto decoded = decode_message(r.message);
      if (!decoded) continue;
      const MessageRef m =
          MessageRef::create(decoded->header.id, decoded->header.timestamp_ns, decoded->body);
      const auto defer = delay_until(r.defer_until_ms);
      if (!progress.handed.contains(at)) {
        (void)topic->publish_prepared({&m, 1}, defer, spill);
        ++queued;
        continue;
      }
      for (const auto& [ch, finished] : channels) {
        if (finished->contains(at)) continue;
        ch->put({&m, 1}, defer, spill);
        ++queued;
      }
    }
    if (auto ec = broker.disk_writer().write(spill)) {
      log.error("TOPIC({}): cannot write what a takeover queued - {}", name, ec.message());
    }
  }
  return queued;
}

void step_down(Broker& broker, const std::string& name) {
  if (auto topic = broker.find_topic(name)) drop_everything(*topic);
}

}  // namespace nsq::nsqd::cluster
