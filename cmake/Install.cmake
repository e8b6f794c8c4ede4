# `cmake --install` puts the standalone libraries, their headers and a package
# config in place: find_package(nsq COMPONENTS diskqueue) then nsq::diskqueue.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NSQ_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/nsq)

install(TARGETS diskqueue EXPORT nsq-diskqueue-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY libdiskqueue/include/diskqueue DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT nsq-diskqueue-targets NAMESPACE nsq:: DESTINATION ${NSQ_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/nsqConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/nsqConfig.cmake INSTALL_DESTINATION ${NSQ_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nsqConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nsqConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/nsqConfigVersion.cmake DESTINATION ${NSQ_INSTALL_CMAKEDIR})
