# Man pages (/usr/share/man/man1/<program>.1.gz) and the daemons' config files
# (/etc/nsq/<daemon>.conf), made from each program's own --help by
# nsq_docgen (tools/nsq_docgen), so they list exactly the flags, descriptions
# and defaults the binary has. Included by Packaging.cmake with NSQ_PACKAGE.
set(nsq_docs_dir ${PROJECT_BINARY_DIR}/package-docs)
set(nsq_doc_source "nsq-cpp ${PROJECT_VERSION}")
set(nsq_doc_outputs "")

# Runs `<program> --help` (usage on stdout or stderr, as Go's daemons and
# tools differ) into <program>.help.
function(nsq_help_text program)
  add_custom_command(OUTPUT ${nsq_docs_dir}/${program}.help
    COMMAND sh -c "\"$1\" --help >\"$2\" 2>&1" sh $<TARGET_FILE:${program}>
      ${nsq_docs_dir}/${program}.help
    DEPENDS ${program}
    VERBATIM)
endfunction()

# nsq_man_page(PROGRAM SUMMARY text [DESCRIPTION paragraph ...] [CONFIG_FILE path]
#              [SEE_ALSO page ...])
function(nsq_man_page program)
  cmake_parse_arguments(M "" "SUMMARY;CONFIG_FILE" "DESCRIPTION;SEE_ALSO" ${ARGN})
  nsq_help_text(${program})
  set(args --program ${program} --usage ${nsq_docs_dir}/${program}.help
    --out ${nsq_docs_dir}/${program}.1 --summary ${M_SUMMARY} --source ${nsq_doc_source})
  foreach(paragraph IN LISTS M_DESCRIPTION)
    list(APPEND args --description ${paragraph})
  endforeach()
  if(M_CONFIG_FILE)
    list(APPEND args --config-file ${M_CONFIG_FILE})
  endif()
  foreach(page IN LISTS M_SEE_ALSO)
    list(APPEND args --see-also ${page})
  endforeach()
  add_custom_command(OUTPUT ${nsq_docs_dir}/${program}.1.gz
    COMMAND nsq_docgen man ${args}
    COMMAND gzip -9nf ${nsq_docs_dir}/${program}.1
    DEPENDS nsq_docgen ${nsq_docs_dir}/${program}.help
    VERBATIM)
  install(FILES ${nsq_docs_dir}/${program}.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  set(nsq_doc_outputs ${nsq_doc_outputs} ${nsq_docs_dir}/${program}.1.gz PARENT_SCOPE)
endfunction()

# nsq_config_file(PROGRAM [SET key=value ...]): /etc/nsq/PROGRAM.conf,
# every option commented out but those SET (the package's own choices).
function(nsq_config_file program)
  cmake_parse_arguments(C "" "" "SET" ${ARGN})
  set(path /etc/nsq/${program}.conf)
  set(args --program ${program} --usage ${nsq_docs_dir}/${program}.help
    --out ${nsq_docs_dir}/${program}.conf --path ${path} --source ${nsq_doc_source})
  foreach(setting IN LISTS C_SET)
    list(APPEND args --set ${setting})
  endforeach()
  add_custom_command(OUTPUT ${nsq_docs_dir}/${program}.conf
    COMMAND nsq_docgen conf ${args}
    DEPENDS nsq_docgen ${nsq_docs_dir}/${program}.help
    VERBATIM)
  install(FILES ${nsq_docs_dir}/${program}.conf DESTINATION /etc/nsq)
  set(nsq_doc_outputs ${nsq_doc_outputs} ${nsq_docs_dir}/${program}.conf PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${nsq_docs_dir})
set(daemons "nsqd(1)" "nsqlookupd(1)" "nsqadmin(1)")
set(config_note "Options come from the command line or, with --config, from a TOML file whose keys are the flags' names with '_' for '-' (a few as Go NSQ names them: the installed file lists every key).")

nsq_man_page(nsqd
  SUMMARY "the NSQ daemon: receives, queues and delivers messages"
  DESCRIPTION "nsqd receives messages over TCP (the NSQ protocol) or HTTP, keeps them per topic in memory and on disk, and delivers each to one consumer of every channel of the topic. It registers its topics with nsqlookupd, so consumers find it. This is nsq-cpp's nsqd, a drop-in replacement for Go NSQ v1.3.0's: the same flags, protocols and data directory."
    "${config_note}"
  CONFIG_FILE /etc/nsq/nsqd.conf SEE_ALSO "nsqlookupd(1)" "nsqadmin(1)" "nsq_tail(1)")
nsq_man_page(nsqlookupd
  SUMMARY "the NSQ discovery service: which nsqd have which topics"
  DESCRIPTION "nsqlookupd keeps the registrations nsqd send it over TCP and answers consumers' and nsqadmin's HTTP queries: the nsqd that have a topic, the topics and channels of a cluster. It keeps no files. nsq-cpp's nsqlookupd, a drop-in replacement for Go NSQ v1.3.0's."
    "${config_note}"
  CONFIG_FILE /etc/nsq/nsqlookupd.conf SEE_ALSO "nsqd(1)" "nsqadmin(1)")
nsq_man_page(nsqadmin
  SUMMARY "web UI and HTTP API over an NSQ cluster"
  DESCRIPTION "nsqadmin shows the topics, channels, nodes and clients of a cluster, found through nsqlookupd (--lookupd-http-address) or given nsqd (--nsqd-http-address), and pauses, empties or deletes topics and channels. nsq-cpp's nsqadmin, with Go NSQ v1.3.0's flags and API; the web UI is compiled into the binary."
    "${config_note}"
  CONFIG_FILE /etc/nsq/nsqadmin.conf SEE_ALSO "nsqd(1)" "nsqlookupd(1)")
nsq_man_page(nsq_tail
  SUMMARY "print the messages of NSQ topics to stdout"
  DESCRIPTION "nsq_tail consumes one or more topics (on an ephemeral channel unless --channel is given) from nsqd or through nsqlookupd and writes each message's body on a line of its own. Go NSQ v1.3.0's flags and output."
  SEE_ALSO ${daemons})
nsq_man_page(nsq_to_file
  SUMMARY "write the messages of NSQ topics to files"
  DESCRIPTION "nsq_to_file consumes topics and appends their messages to files, one message per line, rotating by time or size and optionally gzipping. Go NSQ v1.3.0's flags and file names."
  SEE_ALSO ${daemons})
nsq_man_page(nsq_to_http
  SUMMARY "send the messages of an NSQ topic to HTTP endpoints"
  DESCRIPTION "nsq_to_http consumes a topic and sends each message to HTTP endpoints (GET with the body in the URL, or POST), to all of them or to one picked per message. Go NSQ v1.3.0's flags."
  SEE_ALSO ${daemons})
nsq_man_page(nsq_to_nsq
  SUMMARY "copy the messages of an NSQ topic to other nsqd"
  DESCRIPTION "nsq_to_nsq consumes a topic and publishes each message to a topic on other nsqd, to all of them or to one picked per message. Go NSQ v1.3.0's flags."
  SEE_ALSO ${daemons})
nsq_man_page(nsq_stat
  SUMMARY "print the rates and depths of an NSQ topic or channel"
  DESCRIPTION "nsq_stat polls the nsqd that have a topic (through nsqlookupd, or given) and prints, per interval, a channel's depth, in-flight, deferred, requeued, timed-out and message counts summed over them. Go NSQ v1.3.0's flags and columns."
  SEE_ALSO ${daemons})
nsq_man_page(to_nsq
  SUMMARY "publish lines of stdin to an NSQ topic"
  DESCRIPTION "to_nsq reads stdin, splits it at a delimiter (a newline by default) and publishes each piece as a message to a topic on one or more nsqd. Go NSQ v1.3.0's flags."
  SEE_ALSO ${daemons})
nsq_man_page(nsq_bench
  SUMMARY "load generator for nsqd"
  DESCRIPTION "nsq_bench publishes and consumes messages over many connections and reports rates and latency percentiles; its other modes measure what the machine allows (a server that does no work, group commit on the disk). nsq-cpp's own tool, in the place of Go NSQ's bench_reader and bench_writer."
  SEE_ALSO "nsqd(1)")

nsq_config_file(nsqd SET "data_path=\"/var/lib/nsq\"")
nsq_config_file(nsqlookupd)
nsq_config_file(nsqadmin SET "nsqlookupd_http_addresses=[\"127.0.0.1:4161\"]")

add_custom_target(nsq_package_docs ALL DEPENDS ${nsq_doc_outputs})
