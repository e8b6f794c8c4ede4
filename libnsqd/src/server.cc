#include "nsqd/server.h"

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "cluster/cluster_node.h"
#include "core/broker.h"
#include "core/drain_monitor.h"
#include "core/worker_pool.h"
#include "http/http_api.h"
#include "lookup/lookup_client.h"
#include "net/conn_registry.h"
#include "net/io_loop.h"
#include "net/tls_context.h"
#include "nsq/hostname.h"
#include "nsq/http/server.h"
#include "nsq/http/v1_api.h"
#include "nsq/io_pool.h"
#include "nsq/listen_address.h"
#include "nsqd/options.h"
#include "protocol/client_conn.h"
#include "stats/statsd.h"

namespace nsq::nsqd {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// How long an I/O thread out of work polls before it sleeps (io_loop.h):
// a single PUB's next request comes about 20-30 us after its reply here.
constexpr std::chrono::microseconds kIoSpin{100};
// The HTTP threads' longer: in cluster mode a replication round (records
// out, a follower's fsync, its confirmation in) comes back every few
// hundred microseconds, and the records wait for this thread to wake (about
// 50 us here). Replicated MPUB with 4 publishers: 561k -> 619k msgs/s, the
// same CPU per message (benchmarks/RESULTS.md).
constexpr std::chrono::microseconds kHttpSpin{400};

int io_thread_count(const Options& o) {
  if (o.io_threads > 0) return o.io_threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// --etcd-endpoints, comma-separated, as a client of etcd.
tl::expected<cluster::etcd::Client, std::string> make_etcd_client(const Options& o) {
  std::vector<std::string> endpoints;
  for (std::size_t from = 0; from <= o.etcd_endpoints.size();) {
    const std::size_t comma = std::min(o.etcd_endpoints.find(',', from), o.etcd_endpoints.size());
    if (comma > from) endpoints.push_back(o.etcd_endpoints.substr(from, comma - from));
    from = comma + 1;
  }
  return cluster::etcd::Client::make(
      endpoints,
      {std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_connect_timeout),
       std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_request_timeout)});
}

class Server final : public DaemonServer {
 public:
  Server(Options options, std::shared_ptr<spdlog::logger> log)
      : log_(log),
        broker_(std::move(options), log),
        io_(io_thread_count(broker_.options()),
            [](asio::io_context& ctx) { run_io_loop(ctx, kIoSpin); }),
        acceptor_(io_.first()),
        api_(broker_, registry_,
             NodeInfo{os_hostname(), broker_.options().broadcast_address,
                      std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count(),
                      [this] { return static_cast<int>(tcp_port_); },
                      [this] { return http_ ? static_cast<int>(http_->port()) : 0; }},
             log) {}

  ~Server() override {
    if (lock_fd_ >= 0) ::close(lock_fd_);
  }

  std::string start() override {
    const Options& o = broker_.options();
    std::string dir = o.data_path.empty() ? "." : o.data_path;
    lock_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      return "failed to lock data-path: cannot flock directory " + dir + " - " +
             std::strerror(errno) + " (possibly in use by another instance of nsqd)";
    }
    if (auto loaded = broker_.load_metadata(); !loaded) {
      return "failed to load metadata - " + loaded.error();
    }
    if (std::error_code ec = broker_.save_metadata()) {
      return "failed to persist metadata - " + ec.message();
    }

    auto tls = make_tls_context(o);
    if (!tls) return "failed to build TLS config - " + tls.error();
    if (!o.etcd_endpoints.empty()) {
      auto client = make_etcd_client(o);
      if (!client) return "invalid --etcd-endpoints - " + client.error();
      etcd_client_.emplace(std::move(*client));
    }
    security_.tls = std::move(*tls);
    if (!o.auth_http_addresses.empty()) {
      // Auth queries block for up to the HTTP client timeouts: own threads,
      // so neither the I/O threads nor disk writes wait for them.
      auth_pool_ = std::make_unique<WorkerPool>(2);
      security_.auth_pool = auth_pool_.get();
    }

    api_.set_lifecycle(
        {[this] { begin_drain(); }, [this] { request_stop("PUT /config/shutdown received"); }});

    auto endpoint = parse_listen_address(o.tcp_address);
    if (!endpoint) return "failed to listen on " + o.tcp_address + " - not a host:port address";
    boost::system::error_code ec = open_listener(acceptor_, *endpoint);
    if (ec) return "listen (" + o.tcp_address + ") failed - " + ec.message();
    auto bound = acceptor_.local_endpoint(ec);
    tcp_port_ = bound.port();
    log_->info("TCP: listening on {}", endpoint_string(bound));

    if (!o.http_address.empty()) {
      http::ServerOptions http_options;
      // Polls before it sleeps too: in cluster mode a publish's round trip
      // crosses it twice (the records out, the confirmation in).
      http_options.run_loop = [](asio::io_context& ctx) { run_io_loop(ctx, kHttpSpin); };
      http_options.max_body_size =
          static_cast<std::size_t>(std::max(o.max_body_size, o.max_msg_size));
      // --tls-required=true: the plain listener only points to the HTTPS one.
      const bool refuse_plain = o.tls_required == TlsRequired::yes;
      if (!refuse_plain) {
        http_options.body_limit = [this](const http::Request& h) { return api_.body_limit(h); };
      }
      http_ = std::make_unique<http::Server>(
          http_options,
          [this, refuse_plain](http::Request req, http::ReplyFn reply) {
            if (refuse_plain) {
              reply(tls_required_response());
              return;
            }
            api_.handle(std::move(req), std::move(reply));
          },
          [log = log_](std::string_view line) { log->error("HTTP: {}", line); });
      if (std::string err = http_->listen(o.http_address); !err.empty()) {
        return "listen (" + o.http_address + ") failed - " + err;
      }
      log_->info("HTTP: listening on {}", http_->bound_address());
    }

    if (security_.tls && !o.https_address.empty()) {
      http::ServerOptions https_options;
      https_options.max_body_size =
          static_cast<std::size_t>(std::max(o.max_body_size, o.max_msg_size));
      https_options.tls = security_.tls;
      https_options.body_limit = [this](const http::Request& h) { return api_.body_limit(h); };
      https_ = std::make_unique<http::Server>(
          https_options,
          [this](http::Request req, http::ReplyFn reply) {
            api_.handle(std::move(req), std::move(reply));
          },
          [log = log_](std::string_view line) { log->error("HTTPS: {}", line); });
      if (std::string err = https_->listen(o.https_address); !err.empty()) {
        return "listen (" + o.https_address + ") failed - " + err;
      }
      log_->info("HTTPS: listening on {}", https_->bound_address());
    }

    if (!o.statsd_address.empty()) {
      StatsdSender::Options so;
      so.address = o.statsd_address;
      so.interval = o.statsd_interval;
      so.packet_size = static_cast<std::size_t>(o.statsd_udp_packet_size);
      int http_port = o.broadcast_http_port > 0 ? o.broadcast_http_port
                                                : (http_ ? static_cast<int>(http_->port()) : 0);
      so.config.prefix = expand_statsd_prefix(o.statsd_prefix, o.broadcast_address, http_port);
      so.config.mem_stats = o.statsd_mem_stats;
      so.config.exclude_ephemeral = o.statsd_exclude_ephemeral;
      so.logger = log_;
      statsd_ = std::make_unique<StatsdSender>(
          std::move(so), [this] { return api_.snapshot("", "", false, true); });
    }

    LookupClient::Settings ls;
    ls.addresses = o.lookupd_tcp_addresses;
    ls.identity.broadcast_address = o.broadcast_address;
    ls.identity.topology_region = o.topology_region;
    ls.identity.topology_zone = o.topology_zone;
    ls.identity.hostname = os_hostname();
    ls.identity.tcp_port = o.broadcast_tcp_port > 0 ? o.broadcast_tcp_port : tcp_port_;
    ls.identity.http_port =
        o.broadcast_http_port > 0 ? o.broadcast_http_port : (http_ ? http_->port() : 0);
    ls.max_body_size = o.max_body_size;
    ls.http_connect_timeout =
        std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_connect_timeout);
    ls.http_request_timeout =
        std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_request_timeout);
    lookup_ = std::make_unique<LookupClient>(
        std::move(ls),
        [this] {
          LookupClient::Topology t;
          for (const auto& topic : broker_.topics()) {
            if (cluster_ && !cluster_->registers(topic->name())) continue;
            std::vector<std::string> names;
            for (const auto& ch : topic->channels()) names.push_back(ch->name());
            t.emplace_back(topic->name(), std::move(names));
          }
          return t;
        },
        log_);
    broker_.set_lookup_hooks(Broker::LookupHooks{
        [this](bool added, const std::string& topic, const std::string& channel) {
          if (cluster_ && !cluster_->registers(topic)) return;
          lookup_->registration_changed(added, topic, channel);
        },
        [this](const std::string& topic) { return lookup_->channels_of(topic); },
        [this] { return lookup_->configured(); }});
    api_.on_lookupd_addresses_changed([this](std::vector<std::string> addresses) {
      lookup_->set_addresses(std::move(addresses));
    });

    start_cluster();

    asio::co_spawn(io_.first(), accept_loop(), asio::detached);
    io_.start();
    if (http_) http_->start();
    if (https_) https_->start();
    if (statsd_) statsd_->start();
    lookup_->start();
    return {};
  }

  SignalAction on_signal(int sig) override {
    if (sig != SIGTERM || !broker_.options().sigterm_drains()) return SignalAction::stop;
    if (!begin_drain()) {
      log_->info("signal {} received: already draining (SIGINT or PUT /config/shutdown exits now)",
                 sig);
    }
    return SignalAction::keep_running;
  }

  void stop() override {
    {
      std::lock_guard lock(drain_mu_);
      drain_monitor_.reset();
    }
    // Stop accepting, on the acceptor's own thread.
    std::promise<void> closed;
    asio::post(io_.first(), [&] {
      boost::system::error_code ec;
      acceptor_.close(ec);
      closed.set_value();
    });
    closed.get_future().wait();
    log_->info("TCP: closing {}", "listener");
    if (cluster_) cluster_->stop();  // this node's leaderships end now, not a lease TTL later
    if (http_) http_->stop();
    if (https_) https_->stop();
    if (statsd_) statsd_->stop();
    if (lookup_) lookup_->stop();
    registry_.close_all();
    if (!registry_.wait_empty(std::chrono::seconds(10))) {
      log_->warn("{} clients did not close in time", registry_.size());
    }
    broker_.close();
    io_.stop();
  }

 private:
  // --sigterm=drain's SIGTERM or PUT /config/drain: false when already draining.
  bool begin_drain() {
    std::lock_guard lock(drain_mu_);
    if (!broker_.start_draining()) return false;
    drain_monitor_ = std::make_unique<DrainMonitor>(
        broker_, [this] { request_stop("DRAIN: every topic and channel is delivered"); });
    return true;
  }

  // Go's answer on the plain HTTP listener when TLS is required.
  http::Response tls_required_response() const {
    return http::v1_response(403,
                             "{\"message\": \"TLS_REQUIRED\", \"https_port\": " +
                                 std::to_string(https_ ? https_->port() : 0) + "}",
                             http::kJsonContentType);
  }

  // Cluster mode (--etcd-endpoints): joins the cluster in etcd and places
  // the topics this node has and creates (docs/replication.md).
  void start_cluster() {
    const Options& o = broker_.options();
    if (!etcd_client_) return;
    const int tcp_port = o.broadcast_tcp_port > 0 ? o.broadcast_tcp_port : tcp_port_;
    const int http_port = o.broadcast_http_port > 0 ? o.broadcast_http_port
                                                    : (http_ ? static_cast<int>(http_->port()) : 0);
    cluster_ = std::make_unique<cluster::ClusterNode>(
        std::move(*etcd_client_), o, o.broadcast_address + ":" + std::to_string(tcp_port),
        o.broadcast_address + ":" + std::to_string(http_port), broker_, log_,
        [this](const std::string& topic, bool leading) {
          // Only the leader is found through nsqlookupd (docs/replication.md).
          auto t = broker_.find_topic(topic);
          std::vector<std::string> channels;
          if (t) {
            for (const auto& ch : t->channels()) channels.push_back(ch->name());
          }
          if (leading) lookup_->registration_changed(true, topic, "");
          for (const auto& ch : channels) lookup_->registration_changed(leading, topic, ch);
          if (!leading) lookup_->registration_changed(false, topic, "");
        });
    api_.set_cluster(cluster_->http_hooks());
    cluster_->start();
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(
          io_.next(), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
        log_->error("TCP: accept error - {}", ec.message());
        continue;
      }
      std::make_shared<ClientConn>(std::move(socket), broker_, registry_, security_)->start();
    }
  }

  std::shared_ptr<spdlog::logger> log_;
  Broker broker_;
  ConnRegistry registry_;
  IoPool io_;
  tcp::acceptor acceptor_;
  std::uint16_t tcp_port_ = 0;
  HttpApi api_;
  std::unique_ptr<http::Server> http_;
  std::unique_ptr<http::Server> https_;
  std::unique_ptr<StatsdSender> statsd_;
  std::unique_ptr<LookupClient> lookup_;
  // Cluster mode only. Its thread calls into broker_ (declared before it).
  std::optional<cluster::etcd::Client> etcd_client_;  // from --etcd-endpoints, for cluster_
  std::unique_ptr<cluster::ClusterNode> cluster_;
  ConnSecurity security_;
  // After io_: destroyed (its queued queries finished) while the I/O
  // contexts they post their results to still exist.
  std::unique_ptr<WorkerPool> auth_pool_;
  int lock_fd_ = -1;
  std::mutex drain_mu_;
  std::unique_ptr<DrainMonitor> drain_monitor_;  // guarded by drain_mu_: while draining
};

}  // namespace

std::unique_ptr<DaemonServer> make_server(Options options, std::shared_ptr<spdlog::logger> log) {
  return std::make_unique<Server>(std::move(options), std::move(log));
}

}  // namespace nsq::nsqd
