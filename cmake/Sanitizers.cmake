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

# Sanitizer and fuzz trees are built to run tests, not to be fast: -O1 with
# line tables only (all a sanitizer's stack trace needs) compiles in about
# half the time of -O2 -g, which keeps a cold CI within its budget. These
# come after CMAKE_CXX_FLAGS_<CONFIG> on the command line, so they win.
if(NSQ_SANITIZE OR NSQ_FUZZ_ONLY)
  add_compile_options(-O1 -g1)
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

# GCC 12 with ASan inlines Asio's coroutine-frame allocator (awaitable_frame_base's
# operator new, which takes memory from a per-thread cache or ::operator new)
# and then flags the frame's class operator delete as mismatched
# (-Wmismatched-new-delete): a false positive on coroutine frames with class
# allocation functions (GCC bug 109224). The pair is Asio's own and matched. Only
# the C++ client's connection (the one coroutine file built with -Werror under
# ASan that trips it) leaves the warning out; the plain build still checks it.
if(NSQ_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  function(nsq_sanitize_asio_frames)
    if(TARGET nsq_client)
      set_source_files_properties(${PROJECT_SOURCE_DIR}/libnsq/src/client/connection.cc
        TARGET_DIRECTORY nsq_client PROPERTIES COMPILE_OPTIONS -Wno-mismatched-new-delete)
    endif()
  endfunction()
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL nsq_sanitize_asio_frames)
endif()
