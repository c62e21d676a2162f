/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench --record's recorder: the recorder library (recorder.h) in this
 * process, its rings drained by a thread of its own, so that the bench
 * records as `record -a` would without running the tool again.
 *
 * bench_recording__start() returns once the events are enabled and the
 * output has its name: the workload of the recorded pass starts after
 * it and misses nothing. bench_recording__stop() completes the file.
 */
#ifndef RS_BENCH_RECORDING_H
#define RS_BENCH_RECORDING_H

#include <stdbool.h>
#include <stddef.h>

#include "recorder.h"

struct bench_recording;

/*
 * Record every CPU into path, a name in the directory dirfd (AT_FDCWD:
 * a path), shown as shown (an earlier file there becomes path.old). 0, or
 * -errno with what failed in errbuf. The recording's command line is
 * "rstat-analyze" and argv (bench's, as the user ran it), which must
 * outlive the recording.
 */
int bench_recording__start(struct bench_recording **out, int dirfd,
			   const char *path, const char *shown, int argc,
			   char **argv, char *errbuf, size_t len);
/* Stop draining and complete the file; -errno with errbuf on failure. */
int bench_recording__stop(struct bench_recording *br, char *errbuf,
			  size_t len);
/* What the recording does without (after a start that succeeded). */
const struct recorder_notes *
bench_recording__notes(const struct bench_recording *br);
/* Its counts, lost records included. */
void bench_recording__stats(const struct bench_recording *br,
			    struct recorder_stats *st);
/*
 * Have bench_recording__delete() remove even a completed file and put
 * back the earlier ones (the run was interrupted after it).
 */
void bench_recording__discard(struct bench_recording *br);
/*
 * Stops a recording still running; a file not completed (or discarded)
 * is removed, and path and path.old are as before.
 */
void bench_recording__delete(struct bench_recording *br);

#endif /* RS_BENCH_RECORDING_H */
