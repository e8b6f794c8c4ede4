#include "nsq/io_pool.h"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>
#include <vector>

namespace nsq {

namespace asio = boost::asio;

struct IoPool::Impl {
  RunLoop run;
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  // Keep each context's run() from returning while it has nothing to do.
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  std::vector<std::thread> threads;
  std::size_t next = 0;
};

IoPool::IoPool(int threads, RunLoop run) : impl_(std::make_unique<Impl>()) {
  impl_->run = run ? std::move(run) : [](asio::io_context& ctx) { ctx.run(); };
  for (int i = 0; i < std::max(threads, 1); ++i) {
    // Concurrency hint 1: each context is run by its one thread only.
    impl_->contexts.push_back(std::make_unique<asio::io_context>(1));
    impl_->guards.emplace_back(impl_->contexts.back()->get_executor());
  }
}

IoPool::~IoPool() { stop(); }

void IoPool::start() {
  for (auto& c : impl_->contexts) {
    impl_->threads.emplace_back([this, ctx = c.get()] { impl_->run(*ctx); });
  }
}

bool IoPool::running() const { return !impl_->threads.empty(); }

void IoPool::stop() {
  impl_->guards.clear();
  for (auto& c : impl_->contexts) c->stop();
  for (auto& t : impl_->threads) t.join();
  impl_->threads.clear();
}

asio::io_context& IoPool::first() { return *impl_->contexts.front(); }

asio::io_context& IoPool::next() {
  return *impl_->contexts[impl_->next++ % impl_->contexts.size()];
}

}  // namespace nsq
