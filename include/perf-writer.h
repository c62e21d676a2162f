/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writer of perf.data in the file layout, for `rstat-analyze record`: what
 * Debian's perf (6.1) and our own reader read without a warning.
 *
 * File order: header, data, feature table and sections, then the ids and
 * attrs. The attrs go last so that ids may still be added while the data
 * is written; perf finds them through the header, wherever they are.
 *
 * Library code: never prints. Functions return 0 or -errno; the first
 * error sticks (later calls return it again) and perf_writer__strerror()
 * says what failed.
 */
#ifndef RS_PERF_WRITER_H
#define RS_PERF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct perf_writer;

/*
 * Create path (O_CREAT|O_TRUNC|O_NOFOLLOW|O_CLOEXEC, mode 0600 like perf)
 * and reserve the header. Renaming an existing file to FILE.old is the
 * caller's job. On failure *w is NULL.
 */
int perf_writer__open(struct perf_writer **w, const char *path);
/*
 * The same on a descriptor the caller opened for writing (as outfile.h
 * creates it); the writer owns fd from then on, also on failure.
 */
int perf_writer__open_fd(struct perf_writer **w, int fd);
/*
 * Closes the file; does not unlink it (the caller removes a half-written
 * file on error). NULL is fine.
 */
void perf_writer__delete(struct perf_writer *w);

/*
 * Add the attrs (in order) before any data: the attr as opened
 * (sample_type including PERF_SAMPLE_IDENTIFIER, sample_id_all), the event
 * name (for EVENT_DESC; NULL: none) and the sample ids of its fds.
 */
int perf_writer__add_event(struct perf_writer *w,
			   const struct perf_event_attr *attr,
			   const char *name, const uint64_t *ids,
			   uint32_t nr_ids);
/* Replace the ids of event idx (order of add_event), any time before finish. */
int perf_writer__set_ids(struct perf_writer *w, uint32_t idx,
			 const uint64_t *ids, uint32_t nr_ids);

/* Raw records into the data section (buffered: big writes). */
int perf_writer__write(struct perf_writer *w, const void *buf, size_t len);
/*
 * A PERF_RECORD_FINISHED_ROUND after each drain of all rings (records
 * within one round may be out of order across rings).
 */
int perf_writer__finished_round(struct perf_writer *w);
/* Bytes of data written so far (buffered ones included). */
uint64_t perf_writer__data_size(const struct perf_writer *w);
/*
 * Size of the sample_id_all trailer of non-sample records for the first
 * attr (0 without sample_id_all or before any add_event). Synthesized
 * records carry it zeroed, as perf's do: id 0 maps to the first attr in
 * perf and in our reader, and time 0 sorts them first.
 */
size_t perf_writer__id_hdr_size(const struct perf_writer *w);

/*
 * Features written by finish: HOSTNAME, OSRELEASE, VERSION
 * ("rstat-analyze VERSION"), ARCH, NRCPUS, CPUDESC, CMDLINE, EVENT_DESC,
 * SAMPLE_TIME (when set), TRACING_DATA (when set), BUILD_ID (the running
 * kernel's from /sys/kernel/notes, plus those added). Host facts are
 * gathered by the writer itself. CMDLINE defaults to /proc/self/cmdline.
 * EVENT_DESC is left out when an event has no name or no id: perf 6.1
 * looks an entry up by its first id, and names from the attrs otherwise.
 */
int perf_writer__set_cmdline(struct perf_writer *w, int argc, char **argv);
int perf_writer__set_sample_time(struct perf_writer *w, uint64_t first,
				 uint64_t last);
/*
 * TRACING_DATA as perf's trace-event-info.c writes it (version 0.6):
 * header_page, header_event, no ftrace formats, the formats of the n
 * tracepoints ("sys:name", read from tracefs now), the kallsyms section,
 * printk formats and saved cmdlines. With kallsyms true the text symbols
 * of /proc/kallsyms (types t, T, w, W) fill the kallsyms section, which
 * perf skips and perf_data__kallsyms() gives back; nothing when
 * kptr_restrict hides the addresses. n = 0 with kallsyms true still writes
 * TRACING_DATA (perf reads one without tracepoints silently); n = 0
 * without kallsyms writes none. May be called again: the last call wins.
 */
int perf_writer__set_tracing(struct perf_writer *w,
			     const char *const *tracepoints, size_t n,
			     bool kallsyms);
/*
 * The kallsyms text set_tracing() put in the tracing data (len bytes, no
 * NUL), valid until the next set_tracing() or delete: whoever names kernel
 * addresses during the recording names them as its readers will, without
 * reading /proc/kallsyms again. 0, or -ENOENT when there is none.
 */
int perf_writer__kallsyms(const struct perf_writer *w, const char **text,
			  size_t *len);
/*
 * rstat-analyze's own feature section (bit 255, which perf skips): the
 * spans timed in the kernel during the recording, as kernel_spans__
 * format() writes them (kernel-spans.h). NULL removes it. Copied.
 */
int perf_writer__set_rstat_spans(struct perf_writer *w, const char *text);
/*
 * The other (bit 254): the reads of record's targets decomposed, as
 * bench_breakdown__format() writes them. NULL removes it. Copied.
 */
int perf_writer__set_rstat_breakdown(struct perf_writer *w,
				     const char *text);
/* A BUILD_ID entry (size <= 20), e.g. pid -1, PERF_RECORD_MISC_KERNEL. */
int perf_writer__add_build_id(struct perf_writer *w, int32_t pid,
			      uint16_t misc, const uint8_t *id, size_t size,
			      const char *filename);
/*
 * Flush the data, write the features, ids, attrs and the final header
 * (data size, feature bitmap). No fsync. Nothing may be written after.
 */
int perf_writer__finish(struct perf_writer *w);
/*
 * Write the features, ids, attrs and header of a finished recording
 * again, after what perf_writer__add_build_id() added once the data was
 * read back (perf record does the same: the build ids of the DSOs that
 * samples hit are known only then). The data is left as it is.
 */
int perf_writer__refinish(struct perf_writer *w);
/* One line saying what failed last, or "". */
const char *perf_writer__strerror(const struct perf_writer *w);

/*
 * The TRACING_DATA payload itself (tracing-data.c), as set_tracing()
 * builds it: *out is malloc()ed. On failure err (errlen bytes) says what.
 */
int perf_tracing_data__build(const char *const *tracepoints, size_t n,
			     bool kallsyms, uint8_t **out, size_t *len,
			     size_t *ksyms_off, size_t *ksyms_len,
			     char *err, size_t errlen);

/*
 * Synthesis (synthesize.c): the records perf record writes before the
 * data, so that frames of what already runs symbolize. Call after
 * add_event (records carry the id trailer) and before the ring data.
 *
 * synthesize__kernel_mmap(): PERF_RECORD_MMAP pid -1
 * "[kernel.kallsyms]_text" at _text from /proc/kallsyms, or from the
 * kallsyms text set_tracing() put in the tracing data when there is one
 * (0 when kptr_restrict hides it), then one "[module]" MMAP per module of
 * /proc/modules, as perf does.
 */
int synthesize__kernel_mmap(struct perf_writer *w);
/*
 * pid -1: every process in /proc; else the process of pid (a thread id is
 * taken to its process; -ESRCH when there is none). COMM per thread,
 * MMAP2 per executable mapping, from /proc/PID/task/TID/comm and
 * /proc/PID/task/PID/maps. Processes vanishing meanwhile are skipped
 * silently.
 */
int synthesize__threads(struct perf_writer *w, pid_t pid);

/* One function of a loaded BPF program: where its JITed code lies. */
struct synth_ksym {
	uint64_t addr;
	uint32_t len;
};
/*
 * A PERF_RECORD_KSYMBOL (BPF) for each of the n functions of the BPF
 * programs loaded before the recording, as perf record synthesizes them,
 * named as the kallsyms text set_tracing() put in the tracing data names
 * them ("addr t bpf_prog_<tag>_<name>\t[bpf]": the kernel's own name, the
 * one its KSYMBOL records carry). Those it does not name are left out;
 * nothing without that text. 0 or -errno.
 */
int synthesize__bpf_ksymbols(struct perf_writer *w,
			     const struct synth_ksym *s, size_t n);

#endif
