# `cmake --install` puts the standalone libraries, their headers and a package
# config in place, one export set per component:
#   find_package(nsq COMPONENTS diskqueue) -> nsq::diskqueue
#   find_package(nsq COMPONENTS client)    -> nsq::client (and nsq::wire and
#                                             nsq::http, the libraries under it)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NSQ_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/nsq)
set(NSQ_INSTALLED_COMPONENTS diskqueue)

install(TARGETS nsq_diskqueue EXPORT nsq-diskqueue-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY libdiskqueue/include/diskqueue DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT nsq-diskqueue-targets NAMESPACE nsq:: DESTINATION ${NSQ_INSTALL_CMAKEDIR})

list(APPEND NSQ_INSTALLED_COMPONENTS client)
install(TARGETS nsq_asio nsq_wire nsq_http nsq_client EXPORT nsq-client-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# All of libnsq's headers: the client's include nsq/message.h and
# nsq/result.h, and nsq::wire's and nsq::http's own are usable with it.
install(DIRECTORY libnsq/include/nsq DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT nsq-client-targets NAMESPACE nsq:: DESTINATION ${NSQ_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/nsqConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/nsqConfig.cmake INSTALL_DESTINATION ${NSQ_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nsqConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nsqConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/nsqConfigVersion.cmake DESTINATION ${NSQ_INSTALL_CMAKEDIR})
