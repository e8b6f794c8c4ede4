# Applies NSQ_SANITIZE to everything built after this point.
# scripts/sanitizers/ctest.sh runs a build made this way with the runtime
# options CI uses (every report fatal and collected).
if(NSQ_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(NSQ_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  # GCC warns (-Wtsan, an error under -Werror) that TSan does not model
  # std::atomic_thread_fence, which Asio's handler completion uses. Asio's
  # scheduler queues handlers under a mutex, which TSan does see, so the
  # fences add no ordering TSan needs; a report inside Asio would say otherwise.
  add_compile_options($<$<CXX_COMPILER_ID:GNU>:-Wno-tsan>)
  add_link_options(-fsanitize=thread)
elseif(NOT NSQ_SANITIZE STREQUAL "")
  message(FATAL_ERROR "NSQ_SANITIZE must be '', 'address' or 'thread', not '${NSQ_SANITIZE}'")
endif()

# GCC's instrumentation makes -Wmaybe-uninitialized fire on code that is fine
# (GCC's manual warns of exactly this): inside Boost.Beast's parser
# (libnsq/src/http/request_parser.cc) and libstdc++'s std::regex (auth.h).
# The plain -Werror build still checks that warning on the same code, so the
# sanitizer build, also -Werror in CI, leaves it out. An explicit -Wno- wins
# over the targets' later -Wall.
if(NSQ_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options(-Wno-maybe-uninitialized)
endif()
