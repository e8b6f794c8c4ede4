#include "cluster/fetcher.h"

#include <charconv>

#include "cluster/replicator.h"
#include "nsq/http/client.h"

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

void Fetcher::set_address(const std::string& leader_http) {
  std::lock_guard lock(mu_);
  settings_.leader_http = leader_http;
}

void Fetcher::run() {
  for (;;) {
    const bool ok = fetch_once();
    std::unique_lock lock(mu_);
    if (stopping_) break;
    // After a failure (the leader down, nothing to follow yet), a pause
    // rather than a busy loop; the stop cuts it short.
    if (!ok) wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopping_; });
    if (stopping_) break;
  }
  finished_.store(true, std::memory_order_release);
}

bool Fetcher::fetch_once() {
  wire::FetchRequest request;
  request.wait_ms = settings_.wait_ms;
  request.max_bytes = settings_.max_bytes;
  request.node = settings_.node_id;
  request.topics = replicator_.followed(settings_.leader_id);
  if (request.topics.empty()) return false;
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
    return false;
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
  auto response = http::request(r);
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
    return false;
  }
  last_error_.clear();
  bool absorbed = true;
  for (const auto& answer : *answers) {
    absorbed = replicator_.absorb(settings_.leader_id, answer) && absorbed;
  }
  return absorbed;
}

}  // namespace nsq::nsqd::cluster
