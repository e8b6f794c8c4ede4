#include "cluster/fetcher.h"

#include "cluster/replicator.h"

namespace nsq::nsqd::cluster {

Fetcher::Fetcher(Replicator& replicator, Settings settings, std::shared_ptr<spdlog::logger> log)
    : replicator_(replicator), settings_(std::move(settings)), log_(std::move(log)) {
  thread_ = std::thread([this] { run(); });
}

Fetcher::~Fetcher() {
  request_stop();
  thread_.join();
}

void Fetcher::request_stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
}

bool Fetcher::stopping() const {
  std::lock_guard lock(mu_);
  return stopping_;
}

void Fetcher::run() {
  while (!stopping()) {
    const bool ok = sync_failed_ ? recover() : round();
    if (ok) continue;
    // After a failure (the leader down, nothing to follow yet, a disk
    // error), a pause rather than a busy loop; the stop cuts it short.
    std::unique_lock lock(mu_);
    wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopping_; });
  }
  // What was written is fsynced before the thread ends: the leader may not
  // hear of it, but a restart finds it.
  if (written_ && !sync_failed_) (void)replicator_.sync_followed(settings_.leader_id);
  finished_.store(true, std::memory_order_release);
}

wire::FetchRequest Fetcher::fetch_request(std::uint32_t max_bytes) const {
  wire::FetchRequest request;
  request.max_bytes = max_bytes;
  request.wait_ms = settings_.wait_ms;
  request.node = settings_.node_id;
  request.topics = replicator_.followed(settings_.leader_id);
  return request;
}

void Fetcher::log_failure(const std::string& error) {
  if (error == last_error_) return;
  log_->warn("CLUSTER: fetch from {} failed - {}", settings_.leader_id, error);
  last_error_ = error;
}

bool Fetcher::round() {
  const wire::FetchRequest request = fetch_request(settings_.max_bytes);
  if (request.topics.empty()) return false;
  // Asked first: the leader holds it (or answers it) while this fsyncs.
  auto sent = send(connection_, request);
  if (written_ && !sync_and_confirm()) {
    connection_.close();  // its answer would be written over logs about to be cut back
    return false;
  }
  if (!sent) {
    log_failure(sent.error());
    return false;
  }
  auto response = connection_.receive();
  if (!response) {
    log_failure(response.error());
    return false;
  }
  if (response->status != 200) {
    log_failure("status " + std::to_string(response->status) + ": " +
                response->body.substr(0, 200));
    return false;
  }
  auto answers = wire::decode_answers(response->body);
  if (!answers) {
    log_failure(answers.error());
    return false;
  }
  last_error_.clear();
  bool absorbed = true;
  for (const auto& answer : *answers) {
    absorbed = replicator_.absorb(settings_.leader_id, answer) && absorbed;
    written_ = written_ || !answer.records.empty();
  }
  return absorbed;
}

bool Fetcher::sync_and_confirm() {
  if (!replicator_.sync_followed(settings_.leader_id)) {
    // What was written since the last good fsync may be gone from the disk
    // however the next fsync goes: no more fetching (so the leader drops
    // this node from the in-sync set rather than wait for confirmations
    // that cannot come) until recover() has cut the logs back to what is
    // known durable.
    sync_failed_ = true;
    return false;
  }
  written_ = false;
  const wire::FetchRequest request = fetch_request(0);  // max bytes 0: a confirmation
  if (request.topics.empty()) return true;
  // Not waited for: the answer (nothing but "taken") is read before the
  // next confirmation, by then mostly there. A failure shows in the next
  // fetch to the same leader, which logs it and carries the confirmation.
  (void)send(confirmations_, request);
  return true;
}

bool Fetcher::recover() {
  if (!replicator_.cut_followed_to_durable(settings_.leader_id)) return false;
  sync_failed_ = false;
  written_ = false;
  log_->info("CLUSTER: fsyncs work again: following {} from what is durable", settings_.leader_id);
  return true;
}

tl::expected<void, std::string> Fetcher::send(FetchStream& stream,
                                              const wire::FetchRequest& request) {
  // A live leader answers a confirmation at once: one from a frozen leader
  // must not hold the thread (and a stop) for long.
  const std::chrono::milliseconds timeout =
      request.max_bytes == 0 ? 2 * settings_.connect_timeout
                             : std::chrono::milliseconds(request.wait_ms) +
                                   settings_.connect_timeout + std::chrono::seconds(5);
  const std::size_t max_answer =
      std::size_t(settings_.max_bytes) * request.topics.size() + (1 << 20);
  return stream.send(settings_.leader_id, wire::encode(request), settings_.connect_timeout, timeout,
                     max_answer);
}

}  // namespace nsq::nsqd::cluster
