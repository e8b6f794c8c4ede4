# cmake -P script for one install test: installs BUILD_DIR into a scratch
# prefix under WORK_DIR, builds the project in CONSUMER_DIR against it (as an
# outside project would, through find_package(nsq)), then runs its `consumer`
# program with WORK_DIR as argument; with NSQD set, under with_nsqd.sh, which
# gives it a live nsqd's address instead.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
if(NSQD)
  run(bash ${CMAKE_CURRENT_LIST_DIR}/with_nsqd.sh ${NSQD} ${WORK_DIR}/nsqd-data
      ${WORK_DIR}/build/consumer)
else()
  run(${WORK_DIR}/build/consumer ${WORK_DIR})
endif()
