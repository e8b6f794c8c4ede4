#include "cluster/fetcher.h"

#include <charconv>

#include "cluster/replicator.h"

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
    // What was asked for is fsynced before the thread ends: the leader may
    // not have heard of it, but a restart finds it.
    sync_cv_.wait(lock, [&] { return sync_wanted_ || stopping_; });
    if (!sync_wanted_) break;
    sync_wanted_ = false;
    // A later fsync that works proves nothing of what the failed one lost:
    // none until recover() has cut the logs back.
    if (sync_failed_) continue;
    lock.unlock();
    const bool synced = replicator_.sync_followed(settings_.leader_id);
    lock.lock();
    if (!synced) {
      // What was written since the last good fsync may be gone from the
      // disk however the next fsync goes: the fetch thread stops asking
      // (so the leader drops this node from the in-sync set rather than
      // wait for confirmations that cannot come) until it has cut the logs
      // back to what is known durable.
      sync_failed_ = true;
    } else if (!stopping_) {
      lock.unlock();
      confirm();
      lock.lock();
    }
  }
  running_.fetch_sub(1, std::memory_order_release);
}

void Fetcher::want_sync() {
  {
    std::lock_guard lock(mu_);
    sync_wanted_ = true;
  }
  sync_cv_.notify_all();
}

void Fetcher::set_address(const std::string& leader_http) {
  std::lock_guard lock(mu_);
  settings_.leader_http = leader_http;
}

void Fetcher::run() {
  for (;;) {
    bool failed;
    {
      std::lock_guard lock(mu_);
      failed = sync_failed_;
    }
    const bool ok = failed ? recover() : fetch_once();
    std::unique_lock lock(mu_);
    if (stopping_) break;
    // After a failure (the leader down, nothing to follow yet), a pause
    // rather than a busy loop; the stop cuts it short.
    if (!ok) wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopping_; });
    if (stopping_) break;
  }
  running_.fetch_sub(1, std::memory_order_release);
}

bool Fetcher::recover() {
  if (!replicator_.cut_followed_to_durable(settings_.leader_id)) return false;
  std::lock_guard lock(mu_);
  sync_failed_ = false;
  log_->info("CLUSTER: fsyncs work again: following {} from what is durable", settings_.leader_id);
  return true;
}

void Fetcher::confirm() {
  wire::FetchRequest request;
  request.max_bytes = 0;  // a confirmation: the leader sends no records back
  request.node = settings_.node_id;
  request.topics = replicator_.followed(settings_.leader_id);
  if (request.topics.empty()) return;
  auto http_request = to_http(request);
  if (!http_request) return;
  // Not waited for: the next fsync runs while the leader takes it. The
  // answer (nothing but "taken") is read before the next confirmation, by
  // then mostly there. A failure shows in the fetch thread's next request
  // to the same leader, which logs it and carries the confirmation.
  if (confirm_connection_.awaiting()) (void)confirm_connection_.receive();
  (void)confirm_connection_.send(*http_request);
}

bool Fetcher::fetch_once() {
  wire::FetchRequest request;
  request.max_bytes = settings_.max_bytes;
  request.wait_ms = settings_.wait_ms;
  request.node = settings_.node_id;
  request.topics = replicator_.followed(settings_.leader_id);
  if (request.topics.empty()) return false;
  auto answers = exchange(connection_, request);
  if (!answers) {
    if (answers.error() != last_error_) {
      log_->warn("CLUSTER: fetch from {} failed - {}", settings_.leader_id, answers.error());
      last_error_ = answers.error();
    }
    return false;
  }
  last_error_.clear();
  bool absorbed = true;
  bool records = false;
  for (const auto& answer : *answers) {
    absorbed = replicator_.absorb(settings_.leader_id, answer) && absorbed;
    records = records || !answer.records.empty();
  }
  if (records) want_sync();  // before a failure's pause: what was written gets fsynced
  return absorbed;
}

tl::expected<http::ClientRequest, std::string> Fetcher::to_http(const wire::FetchRequest& request) {
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
    return tl::unexpected("the leader advertises no host:port (" + address + ")");
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
  // A live leader answers a confirmation at once: one from a frozen leader
  // must not hold the syncer (and a stop) for long.
  r.request_timeout = request.max_bytes == 0
                          ? 2 * settings_.connect_timeout
                          : std::chrono::milliseconds(request.wait_ms) + settings_.connect_timeout +
                                std::chrono::seconds(5);
  r.max_body = std::size_t(settings_.max_bytes) * request.topics.size() + (1 << 20);
  return r;
}

tl::expected<std::vector<wire::FetchAnswer>, std::string> Fetcher::exchange(
    http::KeptConnection& connection, const wire::FetchRequest& request) {
  auto http_request = to_http(request);
  if (!http_request) return tl::unexpected(std::move(http_request.error()));
  auto response = connection.request(*http_request);
  const std::string where = http_request->host + ":" + std::to_string(http_request->port);
  if (!response) return tl::unexpected(where + ": " + response.error());
  if (response->status != 200) {
    return tl::unexpected(where + ": status " + std::to_string(response->status) + ": " +
                          response->body.substr(0, 200));
  }
  return wire::decode_answers(response->body);
}

}  // namespace nsq::nsqd::cluster
