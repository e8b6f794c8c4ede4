find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

# nsq_add_test(NAME SOURCES a.cc b.cc LIBS x y LABELS unit)
# One GTest executable, its tests discovered into CTest.
function(nsq_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main Threads::Threads)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  nsq_set_warnings(${name})
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS "${T_LABELS}" DISCOVERY_TIMEOUT 30)
endfunction()

# nsq_add_fuzzer(NAME SOURCE file.cc LIBS x): a libFuzzer target when built with clang
# (and a short fuzz run as a test), else a corpus-replay program run over
# tests/fuzz/corpus/NAME as a regression test.
function(nsq_add_fuzzer name)
  cmake_parse_arguments(F "" "SOURCE" "LIBS" ${ARGN})
  set(corpus ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${name})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_executable(${name} ${F_SOURCE})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE ${F_LIBS})
    set(work ${CMAKE_CURRENT_BINARY_DIR}/${name}.corpus)
    add_test(NAME ${name}.fuzz
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
        $<TARGET_FILE:${name}> -max_total_time=20 -rss_limit_mb=2048 -timeout=10 ${work} ${corpus})
    set_tests_properties(${name}.fuzz PROPERTIES LABELS fuzz FIXTURES_REQUIRED ${name}.corpus)
    add_test(NAME ${name}.mkcorpus COMMAND ${CMAKE_COMMAND} -E make_directory ${work})
    set_tests_properties(${name}.mkcorpus PROPERTIES FIXTURES_SETUP ${name}.corpus)
  else()
    add_executable(${name} ${F_SOURCE} ${PROJECT_SOURCE_DIR}/tests/fuzz/replay_main.cc)
    target_link_libraries(${name} PRIVATE ${F_LIBS})
    add_test(NAME ${name}.replay COMMAND $<TARGET_FILE:${name}> ${corpus})
    set_tests_properties(${name}.replay PROPERTIES LABELS fuzz)
  endif()
endfunction()
