# The Debian package (issue 22): `cmake -DNSQ_PACKAGE=ON -DCMAKE_INSTALL_PREFIX=/usr`,
# build, then `cpack -G DEB` makes nsq-cpp_<version>_amd64.deb. scripts/package.sh
# does it all in a Release tree of its own; docs/packaging.md says what the
# package holds and how to run it.
#
# With NSQ_PACKAGE the install also holds the daemons and tools, their man
# pages, /etc/nsq/*.conf, the systemd units and /usr/share/doc/nsq-cpp. It is
# off otherwise: those absolute paths (/etc, /lib/systemd) would escape a
# `cmake --install --prefix` elsewhere.
option(NSQ_PACKAGE "Install the programs, man pages, /etc/nsq configs and systemd units (for cpack)" OFF)

set(NSQ_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_NAME nsq-cpp)
set(CPACK_PACKAGE_VERSION ${NSQ_PACKAGE_VERSION})
set(CPACK_PACKAGE_CONTACT "nsq-cpp maintainers <maintainers@users.noreply.a-seed-2f6e7068.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "realtime distributed messaging platform (NSQ in C++)")
set(CPACK_PACKAGE_DESCRIPTION
  "nsqd, nsqlookupd and nsqadmin reimplemented in C++20 with the flags, config
files, TCP and HTTP protocols and data directory of NSQ v1.3.0, so existing
NSQ clients and deployments keep working. Also the NSQ tools (nsq_tail,
nsq_to_file, nsq_to_http, nsq_to_nsq, nsq_stat, to_nsq), the nsq_bench load
generator, systemd units for the three daemons, and the C++ client and disk
queue libraries with their headers and CMake package (find_package(nsq)).")
set(CPACK_PACKAGE_FILE_NAME nsq-cpp_${NSQ_PACKAGE_VERSION}_amd64)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE https://nsq.io)
# The shared libraries the programs link (OpenSSL, snappy, spdlog, fmt,
# Boost.Program_options, zlib), as dpkg-shlibdeps names their packages;
# adduser for postinst (deb-systemd-invoke comes with init-system-helpers, essential).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS adduser)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
  ${PROJECT_SOURCE_DIR}/packaging/debian/prerm
  ${PROJECT_SOURCE_DIR}/packaging/debian/postrm
  ${PROJECT_SOURCE_DIR}/packaging/debian/conffiles)
# Control files keep the modes dpkg wants (scripts 0755, the rest 0644).
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

if(NSQ_PACKAGE)
  if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    message(FATAL_ERROR "NSQ_PACKAGE wants -DCMAKE_INSTALL_PREFIX=/usr (is ${CMAKE_INSTALL_PREFIX})")
  endif()
  set(nsq_programs nsqd nsqlookupd nsqadmin nsq_tail nsq_to_file nsq_to_http nsq_to_nsq
    nsq_stat to_nsq nsq_bench)
  install(TARGETS ${nsq_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # CPACK_STRIP_FILES strips the programs but not the static libraries: their
  # debug info would make them 110 MB. strip --strip-debug, as dh_strip does.
  install(CODE "
    file(GLOB nsq_static_libs \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libnsq_*.a\")
    execute_process(COMMAND strip --strip-debug \${nsq_static_libs} COMMAND_ERROR_IS_FATAL ANY)")
  include(PackageDocs)
  install(FILES
      ${PROJECT_SOURCE_DIR}/packaging/systemd/nsqd.service
      ${PROJECT_SOURCE_DIR}/packaging/systemd/nsqlookupd.service
      ${PROJECT_SOURCE_DIR}/packaging/systemd/nsqadmin.service
    DESTINATION /lib/systemd/system)

  # Debian's per-package doc files: the copyright notice and a changelog
  # entry naming the commit, made when CMake configures (gzip -9n: what
  # lintian wants, byte-identical for the same commit).
  set(doc_dir ${CMAKE_INSTALL_DATAROOTDIR}/doc/nsq-cpp)
  execute_process(COMMAND git log -1 --format=%aD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE NSQ_CHANGELOG_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT NSQ_CHANGELOG_DATE)
    string(TIMESTAMP NSQ_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
  endif()
  configure_file(packaging/debian/changelog.in ${PROJECT_BINARY_DIR}/package-docs/changelog @ONLY)
  execute_process(COMMAND gzip -9nc ${PROJECT_BINARY_DIR}/package-docs/changelog
    OUTPUT_FILE ${PROJECT_BINARY_DIR}/package-docs/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
    ${PROJECT_BINARY_DIR}/package-docs/changelog.gz DESTINATION ${doc_dir})
endif()

include(CPack)
