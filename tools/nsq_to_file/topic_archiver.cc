#include "topic_archiver.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "common/process_exit.h"
#include "common/source_flags.h"
#include "filename_format.h"
#include "nsq/hostname.h"

namespace nsq::to_file {
tl::expected<std::unique_ptr<TopicArchiver>, std::string> TopicArchiver::start(
    const std::string& topic, const Options& options, std::shared_ptr<spdlog::logger> log,
    std::shared_ptr<spdlog::logger> client_log) {
  FilenameSettings names;
  names.filename_format = options.filename_format;
  names.host_identifier = options.host_identifier;
  names.gzip = options.gzip;
  names.rotate_size = options.rotate_size;
  names.rotate_interval = options.rotate_interval;
  names.distinct_work_dir = options.work_dir != options.output_dir;
  std::string host = os_hostname();
  if (host.empty()) host = "localhost";
  auto name_template = topic_filename_template(names, topic, host, ::getpid());
  if (!name_template) return tl::unexpected(name_template.error());

  SinkSettings sink;
  sink.work_dir = options.work_dir;
  sink.output_dir = options.output_dir;
  sink.name_template = std::move(*name_template);
  sink.datetime_format = options.datetime_format;
  sink.gzip_level = options.gzip ? options.gzip_level : 0;
  sink.exclusive = options.gzip || options.rotate_interval.count() > 0;
  sink.rotate_size = options.rotate_size;
  sink.rotate_interval = options.rotate_interval;

  const std::string context = "[" + topic + "/" + options.channel + "]";
  auto self = std::make_unique<TopicArchiver>(Key{});
  self->consumer_ = std::make_unique<client::Consumer>(topic, options.channel,
                                                       options.consumer_config, client_log);
  client::Consumer* consumer = self->consumer_.get();
  ArchiveRouter::ConsumerControl control{[consumer] { return consumer->is_starved(); },
                                         [consumer] { consumer->stop(); }};
  ArchiveRouter::Settings settings{options.max_in_flight, options.sync_interval,
                                   options.skip_empty_files};
  self->router_ = std::make_unique<ArchiveRouter>(FileSink(std::move(sink), log, context), settings,
                                                  std::move(control), log, context);
  ArchiveRouter* router = self->router_.get();
  consumer->set_handler([router](client::Message& m) -> client::HandlerResult {
    // FIN comes from the router once the line is synced to disk.
    m.disable_auto_response();
    router->push(m);
    return {};
  });
  if (auto connected = tools::connect_consumer(*consumer, options.sources); !connected) {
    consumer->stop();
    return tl::unexpected(connected.error());
  }
  self->router_thread_ = std::thread([router, log, context] {
    if (auto routed = router->run(); !routed) {
      log->critical("{} {}", context, routed.error());
      tools::exit_now(1);
    }
  });
  self->stop_watcher_ = std::thread([consumer, router] {
    consumer->wait();
    router->consumer_stopped();
  });
  return self;
}

TopicArchiver::~TopicArchiver() {
  if (router_thread_.joinable()) {
    terminate();
    join();
  }
}

void TopicArchiver::hangup() { router_->hangup(); }

void TopicArchiver::terminate() { router_->terminate(); }

void TopicArchiver::join() {
  if (router_thread_.joinable()) router_thread_.join();
  if (stop_watcher_.joinable()) stop_watcher_.join();
}

}  // namespace nsq::to_file
