#include "core/broker.h"

#include <limits>

#include <spdlog/spdlog.h>

#include "core/metadata.h"
#include "core/read_file.h"
#include "diskqueue/atomic_file.h"
#include "nsq/names.h"
#include "nsqd/errc.h"

namespace nsq::nsqd {
namespace {

std::filesystem::path data_dir(const Options& o) {
  return o.data_path.empty() ? std::filesystem::path(".") : std::filesystem::path(o.data_path);
}

// With --sync-publish each topic's drain holds a disk thread until its
// channels' fsyncs are done: room for many topics at once.
int disk_threads(const Options& o) { return o.sync_publish ? 32 : 4; }
// See WorkerPool: about a client round trip on loopback, with margin.
constexpr std::chrono::microseconds kDiskPoolSpin{100};
// HTTP handlers and lookupd queries: each may block for seconds (a lookupd
// that does not answer), and none of them may hold up a disk write.
constexpr int kBlockingThreads = 4;

}  // namespace

Broker::Broker(Options options, std::shared_ptr<spdlog::logger> log)
    : options_(std::move(options)),
      log_(std::move(log)),
      disk_pool_(std::make_unique<WorkerPool>(disk_threads(options_), kDiskPoolSpin)),
      blocking_pool_(std::make_unique<WorkerPool>(kBlockingThreads)),
      deadlines_(std::make_unique<diskqueue::TimerThread>()),
      disk_syncs_(std::make_shared<diskqueue::TimerThread>()),
      disk_writer_([this](std::error_code ec) { report_disk_result(ec); }),
      ctx_{options_,
           *log_,
           *disk_pool_,
           disk_writer_,
           *deadlines_,
           [this](const std::string& name) { return open_backend(name); },
           [this] { schedule_metadata_save(); },
           [this](bool added, const std::string& topic, const std::string& channel) {
             std::function<void(bool, const std::string&, const std::string&)> hook;
             {
               std::lock_guard lock(hooks_mu_);
               hook = hooks_.registration_changed;
             }
             if (hook) hook(added, topic, channel);
           },
           [this](const std::string& topic, std::vector<std::string> bodies,
                  std::function<void(std::error_code)> done) {
             publish_dead_letters(topic, std::move(bodies), std::move(done));
           }} {}

// A channel's dead letters: published as new messages of `topic_name` on
// this node (in cluster mode too: not replicated), written like a publish.
void Broker::publish_dead_letters(const std::string& topic_name, std::vector<std::string> bodies,
                                  std::function<void(std::error_code)> done) {
  auto topic = get_or_create_topic(topic_name);
  if (!topic) {
    done(make_error_code(errc::exiting));
    return;
  }
  const std::vector<std::string_view> views(bodies.begin(), bodies.end());
  DiskWrites spill;
  if (std::error_code ec = topic->publish(views, std::chrono::milliseconds(0), spill)) {
    done(ec);
    return;
  }
  disk_writer_.submit_async(std::move(spill), std::move(done));
}

void Broker::set_lookup_hooks(LookupHooks hooks) {
  std::lock_guard lock(hooks_mu_);
  hooks_ = std::move(hooks);
}

void Broker::set_topic_hooks(TopicHooks hooks) {
  std::lock_guard lock(hooks_mu_);
  topic_hooks_ = std::move(hooks);
}

Broker::~Broker() {
  deadlines_.reset();
  blocking_pool_.reset();
  disk_pool_.reset();
}

std::shared_ptr<diskqueue::DiskQueue> Broker::open_backend(const std::string& queue_name) {
  diskqueue::Options o;
  o.name = queue_name;
  o.data_path = data_dir(options_);
  o.max_bytes_per_file = options_.max_bytes_per_file;
  o.min_msg_size = static_cast<std::int32_t>(kMessageHeaderSize);
  o.max_msg_size = static_cast<std::int32_t>(options_.max_msg_size + kMessageHeaderSize);
  o.sync_every = options_.sync_every;
  o.manual_read_commit = options_.sync_publish;
  // Where every put waits for an fdatasync, let it overwrite blocks the file
  // system already allocated (see the option); 1 MiB is a metadata commit
  // per MiB of messages instead of per fsync.
  if (options_.sync_publish || options_.sync_every <= 1) o.preallocate_bytes = 1 << 20;
  o.sync_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options_.sync_timeout);
  if (!options_.etcd_endpoints.empty()) {
    // Cluster mode: a topic's replica log holds its messages durably, and a
    // node that starts leading drops what its queues held
    // (docs/replication.md, "Taking over"). The queues are overflow: their
    // checkpoints would only compete with the logs' fsyncs.
    o.sync_every = std::numeric_limits<std::int64_t>::max();
    o.sync_timeout = std::chrono::milliseconds(0);
  }
  o.scheduler = disk_syncs_;
  // The pool outlives every put: publishing stops before the Broker dies.
  o.executor = [pool = disk_pool_.get()](std::function<void()> job) {
    pool->submit(std::move(job));
  };
  auto log = log_;
  o.logger = [log](diskqueue::LogLevel level, std::string_view line) {
    switch (level) {
      case diskqueue::LogLevel::debug:
        log->debug("{}", line);
        break;
      case diskqueue::LogLevel::info:
        log->info("{}", line);
        break;
      case diskqueue::LogLevel::warn:
        log->warn("{}", line);
        break;
      case diskqueue::LogLevel::error:
        log->error("{}", line);
        break;
    }
  };
  auto queue = diskqueue::DiskQueue::open(std::move(o));
  if (!queue) {
    log_->error("failed to open disk queue {} in {} - {}", queue_name, data_dir(options_).string(),
                queue.error().message());
    return nullptr;
  }
  return std::shared_ptr<diskqueue::DiskQueue>(std::move(*queue));
}

std::shared_ptr<Topic> Broker::get_or_create_topic(const std::string& name, ChannelQuery query) {
  // Every publish comes here: an existing topic costs one lookup, not a copy
  // of the hooks.
  if (auto topic = find_topic(name)) return topic;
  std::shared_ptr<Topic> topic;
  LookupHooks hooks;
  std::function<void(const std::string&)> topic_created;
  {
    std::lock_guard lock(hooks_mu_);
    hooks = hooks_;
    topic_created = topic_hooks_.created;
  }
  bool query_lookupd;
  {
    std::lock_guard lock(mu_);
    if (auto it = topics_.find(name); it != topics_.end()) return it->second;
    if (closing_) return nullptr;
    // At runtime, ask lookupd for the topic's channels before delivering
    // (never while loading nsqd.dat).
    query_lookupd = !loading_ && hooks.channels_of && hooks.configured && hooks.configured();
    std::shared_ptr<diskqueue::DiskQueue> backend;
    if (!is_ephemeral(name)) backend = open_backend(name);
    topic =
        std::make_shared<Topic>(name, options_.node_id, ctx_, std::move(backend), !query_lookupd);
    topics_.emplace(name, topic);
  }
  log_->info("TOPIC({}): created", name);
  if (!topic->ephemeral()) {
    schedule_metadata_save();
    if (topic_created) topic_created(name);
  }
  if (hooks.registration_changed) hooks.registration_changed(true, name, "");
  if (query_lookupd) {
    auto start = [channels_of = hooks.channels_of](const std::shared_ptr<Topic>& t) {
      if (auto names = channels_of(t->name())) {
        for (const auto& c : *names) {
          if (is_ephemeral(c) || !is_valid_channel_name(c)) continue;
          t->get_or_create_channel(c);
        }
      }
      t->start();
    };
    if (query == ChannelQuery::on_this_thread) {
      start(topic);
    } else {
      // The HTTP queries may take seconds: never on the caller's (I/O) thread.
      std::weak_ptr<Topic> weak = topic;
      blocking_pool_->submit([weak, start] {
        if (auto t = weak.lock()) start(t);
      });
    }
  }
  return topic;
}

std::shared_ptr<Topic> Broker::find_topic(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<Topic>> Broker::topics() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Topic>> out;
  for (auto& [n, t] : topics_) out.push_back(t);
  return out;
}

bool Broker::delete_topic(const std::string& name) {
  std::shared_ptr<Topic> topic;
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(name);
    if (it == topics_.end()) return false;
    topic = std::move(it->second);
    topics_.erase(it);
  }
  log_->info("TOPIC({}): deleting", name);
  std::vector<std::string> channels;
  for (const auto& channel : topic->channels()) channels.push_back(channel->name());
  topic->remove();
  if (!topic->ephemeral()) {
    schedule_metadata_save();
    std::function<void(const std::string&)> topic_deleted;
    {
      std::lock_guard lock(hooks_mu_);
      topic_deleted = topic_hooks_.deleted;
    }
    if (topic_deleted) topic_deleted(name);
  }
  // As Go: the topic, then each of its channels, so that nsqlookupd drops
  // this node from their registrations too (and forgets ephemeral ones).
  ctx_.registration_changed(false, name, "");
  for (const auto& channel : channels) ctx_.registration_changed(false, name, channel);
  return true;
}

void Broker::client_left(const std::string& topic_name, const std::string& channel) {
  auto topic = find_topic(topic_name);
  if (!topic) return;
  topic->delete_channel_if_unused(channel);
  if (topic->ephemeral() && topic->channel_count() == 0) {
    std::lock_guard lock(mu_);
    if (closing_) return;
    auto it = topics_.find(topic_name);
    if (it == topics_.end() || it->second != topic || topic->channel_count() != 0) return;
    topics_.erase(it);
  }
  if (topic->ephemeral() && topic->channel_count() == 0) {
    log_->info("TOPIC({}): deleting ephemeral topic (no channels left)", topic_name);
    topic->remove();
    ctx_.registration_changed(false, topic_name, "");
  }
}

bool Broker::start_draining() {
  if (draining_.exchange(true)) return false;
  log_->info(
      "DRAIN: refusing new messages, topics and channels; exiting once every queue is "
      "delivered");
  return true;
}

bool Broker::drained() const {
  for (const auto& topic : topics()) {
    if (topic->stats().depth > 0) return false;
    for (const auto& channel : topic->channels()) {
      const ChannelStats s = channel->stats();
      if (s.depth > 0 || s.in_flight > 0 || s.deferred > 0) return false;
    }
  }
  return true;
}

bool Broker::healthy() const {
  std::lock_guard lock(health_mu_);
  return health_error_.empty();
}

std::string Broker::health() const {
  std::lock_guard lock(health_mu_);
  return health_error_.empty() ? "OK" : "NOK - " + health_error_;
}

void Broker::report_disk_result(std::error_code ec) {
  std::lock_guard lock(health_mu_);
  health_error_ = ec ? ec.message() : std::string();
}

void Broker::schedule_metadata_save() {
  {
    std::lock_guard lock(mu_);
    if (loading_ || closing_) return;
  }
  {
    std::lock_guard lock(save_state_mu_);
    if (save_running_) {
      save_again_ = true;
      return;
    }
    save_running_ = true;
  }
  disk_pool_->submit([this] {
    for (;;) {
      save_metadata();
      std::lock_guard lock(save_state_mu_);
      if (!save_again_) {
        save_running_ = false;
        return;
      }
      save_again_ = false;
    }
  });
}

std::error_code Broker::save_metadata() {
  // The snapshot is taken under the same lock as the write, so the file
  // always ends up with the newest topology (an older save cannot land last).
  std::lock_guard lock(metadata_mu_);
  metadata::Topology topology;
  for (const auto& topic : topics()) {
    if (topic->ephemeral()) continue;
    metadata::TopicEntry t{topic->name(), topic->paused(), {}, {}};
    if (const QueueSettings ts = topic->settings(); !ts.is_default()) {
      t.settings = settings_json(ts, SettingsScope::topic);
    }
    for (const auto& ch : topic->channels()) {
      if (ch->ephemeral()) continue;
      const QueueSettings cs = ch->settings();
      t.channels.push_back({ch->name(), ch->paused(),
                            cs.is_default() ? "" : settings_json(cs, SettingsScope::channel)});
    }
    topology.topics.push_back(std::move(t));
  }
  auto path = data_dir(options_) / "nsqd.dat";
  std::error_code ec = diskqueue::write_file_atomic(path, metadata::encode(topology));
  if (ec) log_->error("failed to persist metadata {} - {}", path.string(), ec.message());
  return ec;
}

// Our settings in nsqd.dat. A bad one is logged and left at its default:
// the topology itself loaded, and one bad field should not stop nsqd.
void Broker::apply_stored_settings(const std::string& path, std::string_view text) {
  for (const auto& stored : metadata::decode_settings(text)) {
    auto topic = find_topic(stored.topic);
    if (!topic) continue;
    const bool of_channel = !stored.channel.empty();
    auto channel = of_channel ? topic->find_channel(stored.channel) : nullptr;
    if (of_channel && !channel) continue;
    auto settings =
        apply_settings_json(of_channel ? channel->settings() : topic->settings(), stored.json,
                            of_channel ? SettingsScope::channel : SettingsScope::topic);
    if (!settings) {
      log_->warn("{}: ignoring the settings of {}{}{} - {}", path, stored.topic,
                 of_channel ? ":" : "", stored.channel, settings.error());
      continue;
    }
    if (of_channel) {
      channel->set_settings(std::move(*settings));
    } else {
      topic->set_settings(std::move(*settings));
    }
  }
}

tl::expected<void, std::string> Broker::load_metadata() {
  auto path = data_dir(options_) / "nsqd.dat";
  auto text = read_file_if_exists(path);
  if (!text) {
    return tl::unexpected("failed to read metadata from " + path.string() + " - " + text.error());
  }
  if (!*text) return {};  // fresh start
  auto topology = metadata::decode(**text);
  if (!topology) {
    return tl::unexpected("failed to parse metadata in " + path.string() + " - " +
                          topology.error());
  }
  {
    std::lock_guard lock(mu_);
    loading_ = true;
  }
  for (const auto& t : topology->topics) {
    if (!is_valid_topic_name(t.name)) {
      log_->warn("skipping creation of invalid topic {}", t.name);
      continue;
    }
    auto topic = get_or_create_topic(t.name);
    if (!topic) continue;
    if (t.paused) topic->pause();
    for (const auto& c : t.channels) {
      if (!is_valid_channel_name(c.name)) {
        log_->warn("skipping creation of invalid channel {}", c.name);
        continue;
      }
      auto channel = topic->get_or_create_channel(c.name);
      if (channel && c.paused) channel->pause();
    }
  }
  apply_stored_settings(path.string(), **text);
  {
    std::lock_guard lock(mu_);
    loading_ = false;
  }
  return {};
}

void Broker::close() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  save_metadata();
  for (const auto& topic : topics()) topic->close_for_shutdown();
}

}  // namespace nsq::nsqd
