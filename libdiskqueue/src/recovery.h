#pragma once

#include "diskqueue/disk_queue.h"
#include "meta_file.h"
#include "queue_files.h"
#include "queue_log.h"

namespace nsq::diskqueue {

// Where an opened queue starts: the meta file's positions, repaired against
// the segment files an unclean stop left (docs/diskqueue_format.md,
// "Durable puts", steps 3 to 5).
struct Recovered {
  meta_file::Meta positions;
  bool unsynced = false;  // the meta file no longer matches: checkpoint soon
};

// Reads the meta file and repairs what does not match the files: cuts the
// unfinished tail a crash left past the checkpoint, counts the records
// written past it, and moves the writer to a new segment after them. With
// manual_read_commit it also deletes the segments a crash left behind the
// committed position. Logs every repair; never fails (a missing or
// unreadable meta file starts at 0).
Recovered recover(const Options& options, const QueueFiles& files, const QueueLog& log);

}  // namespace nsq::diskqueue
