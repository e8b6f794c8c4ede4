# nsq_set_warnings(target): the project's warning set, -Werror when NSQ_WERROR is on (CI).
function(nsq_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
    -Wnon-virtual-dtor -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wshadow=local)
  endif()
  if(NSQ_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
