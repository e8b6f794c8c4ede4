// A program outside the nsq tree using the installed C++ client: publishes one
// message to the nsqd at argv[1] ("host:port") and consumes it back.
#include <nsq/client/consumer.h>
#include <nsq/client/producer.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string address = argv[1];
  const std::string body = "hello from outside";

  nsq::client::Producer producer(address, nsq::client::Config());
  if (auto published = producer.publish("install_test", body); !published) {
    std::fprintf(stderr, "publish: %s\n", published.error().c_str());
    return 3;
  }
  producer.stop();

  // The topic had no channel when the message was published: the first
  // channel to subscribe receives it.
  std::promise<std::string> received;
  std::atomic_flag delivered;
  nsq::client::Consumer consumer("install_test", "install_test", nsq::client::Config());
  consumer.set_handler([&](nsq::client::Message& message) -> nsq::client::HandlerResult {
    // A redelivery (never expected) must not set the promise twice.
    if (!delivered.test_and_set()) received.set_value(message.body());
    return {};  // FIN
  });
  if (auto connected = consumer.connect_to_nsqd(address); !connected) {
    std::fprintf(stderr, "connect: %s\n", connected.error().c_str());
    return 4;
  }
  auto future = received.get_future();
  if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    std::fputs("no message within 10 s\n", stderr);
    return 5;
  }
  if (future.get() != body) return 6;
  consumer.stop();
  if (!consumer.wait_for(std::chrono::seconds(10))) return 7;
  if (consumer.stats().messages_finished != 1) return 8;
  std::puts("ok");
  return 0;
}
