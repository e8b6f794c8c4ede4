#include "cluster/fetcher.h"

#include <algorithm>
#include <charconv>

#include "cluster/replicator.h"
#include "nsq/http/client.h"

namespace nsq::nsqd::cluster {

Fetcher::Fetcher(Replicator& replicator, Settings settings, std::shared_ptr<spdlog::logger> log)
    : replicator_(replicator), settings_(std::move(settings)), log_(std::move(log)) {
  syncer_ = std::thread([this] { sync_loop(); });
  thread_ = std::thread([this] { run(); });
}

Fetcher::~Fetcher() {
  request_stop();
  thread_.join();
  syncer_.join();
}

void Fetcher::request_stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  sync_cv_.notify_all();
}

void Fetcher::sync_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    // What was asked for is fsynced before the thread ends: the fetch
    // thread may have confirmed nothing of it yet, but a restart finds it.
    sync_cv_.wait(lock, [&] { return sync_wanted_ || stopping_; });
    if (!sync_wanted_) break;
    sync_wanted_ = false;
    syncing_ = true;
    lock.unlock();
    const bool ok = replicator_.sync_followed(settings_.leader_id);
    lock.lock();
    syncing_ = false;
    if (!ok) sync_failed_ = true;
    sync_cv_.notify_all();
  }
}

void Fetcher::want_sync() {
  {
    std::lock_guard lock(mu_);
    sync_wanted_ = true;
  }
  sync_cv_.notify_all();
}

bool Fetcher::await_sync() {
  std::unique_lock lock(mu_);
  sync_cv_.wait(lock, [&] { return (!sync_wanted_ && !syncing_) || stopping_; });
  const bool ok = !sync_failed_;
  sync_failed_ = false;
  return ok;
}

void Fetcher::set_address(const std::string& leader_http) {
  std::lock_guard lock(mu_);
  settings_.leader_http = leader_http;
}

void Fetcher::run() {
  for (;;) {
    const Fetched fetched = fetch_once();
    // Nothing new: what is written waits for its fsync, whose confirmation
    // the next request carries.
    const bool ok = fetched == Fetched::records || (fetched == Fetched::nothing && await_sync());
    std::unique_lock lock(mu_);
    if (stopping_) break;
    // After a failure (the leader down, nothing to follow yet), a pause
    // rather than a busy loop; the stop cuts it short.
    if (!ok) wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopping_; });
    if (stopping_) break;
  }
  finished_.store(true, std::memory_order_release);
}

Fetcher::Fetched Fetcher::fetch_once() {
  wire::FetchRequest request;
  request.max_bytes = settings_.max_bytes;
  request.node = settings_.node_id;
  request.topics = replicator_.followed(settings_.leader_id);
  if (request.topics.empty()) return Fetched::failed;
  // While an fsync runs, an answer without records is wanted at once: the
  // confirmation it will allow must not wait behind a held request.
  const bool unsynced = std::any_of(request.topics.begin(), request.topics.end(),
                                    [](const wire::FetchTopic& t) { return t.durable < t.offset; });
  request.wait_ms = unsynced ? 0 : settings_.wait_ms;
  std::string address;
  {
    std::lock_guard lock(mu_);
    address = settings_.leader_http;
  }
  // host:port as the leader advertises it in etcd ([v6]:port too).
  const std::size_t colon = address.rfind(':');
  std::uint16_t port = 0;
  const char* digits = address.data() + (colon == std::string::npos ? 0 : colon + 1);
  const auto [end, ec] = std::from_chars(digits, address.data() + address.size(), port);
  if (colon == std::string::npos || ec != std::errc() || end != address.data() + address.size()) {
    if (last_error_ != address) {
      log_->error("CLUSTER: leader {} advertises no host:port ({})", settings_.leader_id, address);
      last_error_ = address;
    }
    return Fetched::failed;
  }
  http::ClientRequest r;
  r.method = "POST";
  r.host = address.substr(0, colon);
  if (r.host.size() > 1 && r.host.front() == '[') r.host = r.host.substr(1, r.host.size() - 2);
  r.port = port;
  r.target = "/cluster/fetch";
  r.headers.emplace_back("Content-Type", "application/octet-stream");
  r.body = wire::encode(request);
  r.connect_timeout = settings_.connect_timeout;
  r.request_timeout = std::chrono::milliseconds(settings_.wait_ms) + settings_.connect_timeout +
                      std::chrono::seconds(5);
  r.max_body = std::size_t(settings_.max_bytes) * request.topics.size() + (1 << 20);
  auto response = connection_.request(r);
  std::string failure;
  if (!response) {
    failure = response.error();
  } else if (response->status != 200) {
    failure = "status " + std::to_string(response->status) + ": " + response->body.substr(0, 200);
  }
  auto answers =
      failure.empty()
          ? wire::decode_answers(response->body)
          : tl::expected<std::vector<wire::FetchAnswer>, std::string>(tl::unexpected(failure));
  if (!answers) {
    if (answers.error() != last_error_) {
      log_->warn("CLUSTER: fetch from {} ({}) failed - {}", settings_.leader_id, address,
                 answers.error());
      last_error_ = answers.error();
    }
    return Fetched::failed;
  }
  last_error_.clear();
  bool absorbed = true;
  bool records = false;
  for (const auto& answer : *answers) {
    absorbed = replicator_.absorb(settings_.leader_id, answer) && absorbed;
    records = records || !answer.records.empty();
  }
  if (records) want_sync();  // before a failure's pause: what was written gets fsynced
  if (!absorbed) return Fetched::failed;
  return records ? Fetched::records : Fetched::nothing;
}

}  // namespace nsq::nsqd::cluster
