find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

# Test code is built with -O1 and line tables only (-g1): the servers under
# test keep the build type's flags, and a cold build of the tests takes about
# a third less time than at -O2 -g.
set(NSQ_TEST_COMPILE_OPTIONS -O1 -g1)

# The label of the tests a sanitizer tree runs (scripts/test.sh selects it).
if(NSQ_SANITIZE STREQUAL "address")
  set(nsq_sanitizer_label asan)
elseif(NSQ_SANITIZE STREQUAL "thread")
  set(nsq_sanitizer_label tsan)
else()
  set(nsq_sanitizer_label "")
endif()

# nsq_add_test(NAME SOURCES a.cc b.cc LIBS x y [LABELS unit|integration|differential]
#              [SANITIZERS address thread|none]
#              [PROPERTIES prop value ...])
# One GTest executable, its tests discovered into CTest. SANITIZERS lists the
# sanitizer trees (NSQ_SANITIZE) that build and run it, default "address";
# "none": the plain tree only. In a sanitizer tree a test not meant for it is
# left out of the default build and of CTest; those that are carry the label
# asan or tsan, which scripts/test.sh selects. PROPERTIES go to every
# discovered test.
function(nsq_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS;SANITIZERS;PROPERTIES" ${ARGN})
  if(NOT T_SANITIZERS)
    set(T_SANITIZERS address)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main Threads::Threads)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_options(${name} PRIVATE ${NSQ_TEST_COMPILE_OPTIONS})
  nsq_set_warnings(${name})
  if(NSQ_SANITIZE AND NOT NSQ_SANITIZE IN_LIST T_SANITIZERS)
    set_target_properties(${name} PROPERTIES EXCLUDE_FROM_ALL ON)
    return()
  endif()
  # One label per test: gtest_discover_tests (CMake 3.25) cannot carry a
  # list. The test's kind in the plain tree, the sanitizer's in the others.
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  list(LENGTH T_LABELS count)
  if(count GREATER 1)
    message(FATAL_ERROR "nsq_add_test(${name}): one label, not ${T_LABELS}")
  endif()
  if(nsq_sanitizer_label)
    set(T_LABELS ${nsq_sanitizer_label})
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${T_LABELS} ${T_PROPERTIES} DISCOVERY_TIMEOUT 30)
endfunction()

# nsq_add_fuzzer(NAME SOURCE file.cc LIBS x [INCLUDES dir ...]): a libFuzzer
# target when built with clang (and a short fuzz run as a test), else a
# corpus-replay program run over tests/fuzz/corpus/NAME as a regression test.
# It links the libraries it fuzzes (in a clang fuzz tree they are built with
# coverage instrumentation); INCLUDES reach their private headers.
function(nsq_add_fuzzer name)
  cmake_parse_arguments(F "" "SOURCE" "LIBS;INCLUDES" ${ARGN})
  set(corpus ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${name})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_executable(${name} ${F_SOURCE})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    set(work ${CMAKE_CURRENT_BINARY_DIR}/${name}.corpus)
    add_test(NAME ${name}.fuzz
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
        $<TARGET_FILE:${name}> -max_total_time=20 -rss_limit_mb=2048 -timeout=10 ${work} ${corpus})
    set_tests_properties(${name}.fuzz PROPERTIES LABELS fuzz FIXTURES_REQUIRED ${name}.corpus)
    add_test(NAME ${name}.mkcorpus COMMAND ${CMAKE_COMMAND} -E make_directory ${work})
    set_tests_properties(${name}.mkcorpus PROPERTIES FIXTURES_SETUP ${name}.corpus)
  else()
    add_executable(${name} ${F_SOURCE} ${PROJECT_SOURCE_DIR}/tests/fuzz/replay_main.cc)
    target_compile_options(${name} PRIVATE ${NSQ_TEST_COMPILE_OPTIONS})
    add_test(NAME ${name}.replay COMMAND $<TARGET_FILE:${name}> ${corpus})
    set_tests_properties(${name}.replay PROPERTIES LABELS fuzz)
  endif()
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  list(TRANSFORM F_INCLUDES PREPEND ${PROJECT_SOURCE_DIR}/)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${F_INCLUDES})
  target_include_directories(${name} SYSTEM PRIVATE ${RAPIDJSON_INCLUDE_DIRS})
  nsq_set_warnings(${name})
endfunction()

# nsq_add_tool(NAME [SOURCES a.cc ...] [LIBS x ...] [RAPIDJSON]
#              [MAIN_SOURCES b.cc ...] [MAIN_LIBS y ...])
# The program NAME from main.cc and MAIN_SOURCES, linking MAIN_LIBS. With
# SOURCES, everything else is the static library NAME_lib (linking LIBS,
# PUBLIC unless a keyword says otherwise; RAPIDJSON adds RapidJSON's headers
# privately) which the program links and the tests reach, the tool's folder
# on its include path.
function(nsq_add_tool name)
  cmake_parse_arguments(T "RAPIDJSON" "" "SOURCES;LIBS;MAIN_SOURCES;MAIN_LIBS" ${ARGN})
  if(T_SOURCES)
    add_library(${name}_lib STATIC ${T_SOURCES})
    target_include_directories(${name}_lib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    if(T_RAPIDJSON)
      target_include_directories(${name}_lib SYSTEM PRIVATE ${RAPIDJSON_INCLUDE_DIRS})
    endif()
    target_link_libraries(${name}_lib PUBLIC ${T_LIBS})
    nsq_set_warnings(${name}_lib)
    list(PREPEND T_MAIN_LIBS ${name}_lib)
  endif()
  add_executable(${name} main.cc ${T_MAIN_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_MAIN_LIBS})
  nsq_set_warnings(${name})
endfunction()
