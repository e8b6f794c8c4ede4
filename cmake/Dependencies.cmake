# Every dependency is an installed Debian package (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(tl-expected REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(RapidJSON REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(Snappy REQUIRED)
find_package(ZLIB REQUIRED)
find_package(OpenSSL REQUIRED)

# nsq_asio: what every target using Boost.Asio needs. Boost 1.74 detects
# Asio's coroutine support for GCC only; clang (the fuzz tree) has it too.
add_library(nsq_asio INTERFACE)
target_link_libraries(nsq_asio INTERFACE Boost::headers Threads::Threads)
target_compile_definitions(nsq_asio INTERFACE $<$<CXX_COMPILER_ID:Clang>:BOOST_ASIO_HAS_CO_AWAIT=1>)
if(NSQ_BUILD_TESTS AND NOT NSQ_FUZZ_ONLY)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(NSQ_BUILD_BENCHMARKS AND NOT NSQ_FUZZ_ONLY)
  find_package(benchmark REQUIRED)
endif()
