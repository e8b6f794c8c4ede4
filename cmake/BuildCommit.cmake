# The git commit `--version` shows (issue 22), read when CMake configures, so
# an installed binary can be traced back to its source. Outside a git checkout
# (a source tarball) it is "unknown"; -DNSQ_GIT_COMMIT=<id> sets it by hand.
# Only libnsq's daemon_options.cc gets it, as a definition: a new commit
# recompiles that one file, not the tree. scripts/build.sh and package.sh
# configure on every run; a tree built by hand keeps the commit of its last
# configure.
if(NOT NSQ_GIT_COMMIT)
  set(NSQ_GIT_COMMIT unknown)
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      OUTPUT_VARIABLE nsq_git_head RESULT_VARIABLE nsq_git_rc
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(nsq_git_rc EQUAL 0 AND nsq_git_head)
      set(NSQ_GIT_COMMIT ${nsq_git_head})
    endif()
  endif()
endif()
message(STATUS "nsq: git commit ${NSQ_GIT_COMMIT}")
set_property(SOURCE libnsq/src/config/daemon_options.cc TARGET_DIRECTORY nsq_wire APPEND
  PROPERTY COMPILE_DEFINITIONS "NSQ_GIT_COMMIT=\"${NSQ_GIT_COMMIT}\"")
