#pragma once

#include <utility>  // before Asio's headers (Boost 1.74)

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace nsq::nsqd::protocol {

// A result another thread (a disk thread, the auth pool) hands to a
// coroutine on a connection's thread: callback() goes to the other thread,
// the coroutine co_awaits wait(). The connection's thread resumes the
// coroutine, so its state is never touched from elsewhere.
template <class T>
class Completion {
 public:
  explicit Completion(boost::asio::any_io_executor executor)
      : executor_(executor), state_(std::make_shared<State>(executor)) {}

  // Thread-safe, to be called once.
  std::function<void(T)> callback() const {
    return [state = state_, executor = executor_](T value) {
      boost::asio::post(executor, [state, value = std::move(value)]() mutable {
        state->value = std::move(value);
        state->timer.cancel();
      });
    };
  }

  boost::asio::awaitable<T> wait() {
    while (!state_->value) {
      boost::system::error_code ignored;
      co_await state_->timer.async_wait(
          boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
    }
    co_return std::move(*state_->value);
  }

 private:
  struct State {
    explicit State(boost::asio::any_io_executor ex)
        : timer(ex, std::chrono::steady_clock::time_point::max()) {}
    boost::asio::steady_timer timer;
    std::optional<T> value;
  };
  boost::asio::any_io_executor executor_;
  std::shared_ptr<State> state_;
};

}  // namespace nsq::nsqd::protocol
