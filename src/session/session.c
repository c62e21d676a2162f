// SPDX-License-Identifier: GPL-2.0
/*
 * The session core: open an input once and tell its kind, own the reader
 * and the machine of a recording, decide its kernel symbols, and queue
 * what there is to say for the command to print.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kernel-spans.h"
#include "perf-data.h"
#include "perf-format.h"
#include "perf-script.h"
#include "symbols.h"
#include "util.h"

#include "session-int.h"

static void msg_queue(struct session *s, bool error, const char *fmt,
		      va_list ap)
{
	char *text;

	if (vasprintf(&text, fmt, ap) < 0)
		return;
	if (grow_array((void **)&s->msgs, &s->cap_msgs, s->nr_msgs + 1,
		       sizeof(*s->msgs))) {
		free(text);
		return;
	}
	s->msgs[s->nr_msgs].error = error;
	s->msgs[s->nr_msgs].text = text;
	s->nr_msgs++;
}

void session_msg_error(struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_queue(s, true, fmt, ap);
	va_end(ap);
}

void session_msg_note(struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_queue(s, false, fmt, ap);
	va_end(ap);
}

const char *session__next_msg(struct session *s, bool *error)
{
	if (!s || s->next_msg == s->nr_msgs)
		return NULL;
	*error = s->msgs[s->next_msg].error;
	return s->msgs[s->next_msg++].text;
}

/* Read up to len bytes, fewer only at end of file. */
static ssize_t read_prefix(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

static bool starts_as_json(const char *text, size_t n)
{
	size_t i = 0;

	while (i < n && (text[i] == ' ' || text[i] == '\t' ||
			 text[i] == '\n' || text[i] == '\r'))
		i++;
	return i < n && (text[i] == '{' || text[i] == '[');
}

enum session_kind session_kind__sniff(const void *data, size_t n)
{
	const char *buf = data;

	if (!n)
		return SESSION_EMPTY;
	switch (perf_format__sniff(buf, n)) {
	case PERF_LAYOUT_FILE:
	case PERF_LAYOUT_PIPE:
	case PERF_LAYOUT_SWAPPED:
		return SESSION_PERF_DATA;
	case PERF_LAYOUT_V1:	/* told apart by the reader's message */
	case PERF_LAYOUT_NONE:
		break;
	}
	if (!perf_script__sniff(buf, n))
		return SESSION_BINARY;
	if (perf_script__recognise(buf, n))
		return SESSION_SCRIPT;
	return starts_as_json(buf, n) ? SESSION_JSON : SESSION_TEXT;
}

static int open_input(struct session *s)
{
	const struct session_opts *o = &s->opts;
	bool is_stdin = o->dash_is_stdin && !strcmp(o->input, "-");
	struct stat sb = { 0 };
	ssize_t n;
	int err;

	s->fd = is_stdin ? STDIN_FILENO : open(o->input, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		err = -errno;
		if (o->open_hint)
			session_msg_error(s, "%s: %s; %s", o->input,
					  strerror(-err), o->open_hint);
		else
			session_msg_error(s, "%s: %s", o->input,
					  strerror(-err));
		return err;
	}
	s->own_fd = !is_stdin;
	if (fstat(s->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		if (o->open_hint)
			session_msg_error(s, "%s: is a directory; %s",
					  o->input, o->open_hint);
		else
			session_msg_error(s, "%s: %s", o->input,
					  strerror(EISDIR));
		return -EISDIR;
	}
	n = read_prefix(s->fd, s->prefix, sizeof(s->prefix));
	if (n < 0) {
		session_msg_error(s, "%s: %s", o->input, strerror((int)-n));
		return n;
	}
	s->prefix_len = n;
	s->kind = session_kind__sniff(s->prefix, n);
	if (s->kind != SESSION_PERF_DATA)
		return 0;
	/* Regular files are mapped whole; streams read as they come. */
	if (!is_stdin && S_ISREG(sb.st_mode))
		err = perf_data__open(&s->pd, o->input);
	else
		err = perf_data__open_fd(&s->pd, s->fd, s->prefix, n);
	if (err) {
		session_data_error(s, err);
		return err;
	}
	perf_data__set_threads(s->pd, o->jobs);
	return 0;
}

int session__open(struct session **sp, const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));

	*sp = s;
	if (!s)
		return -ENOMEM;
	s->opts = *o;
	s->fd = -1;
	s->err_offset = -1;
	return open_input(s);
}

void session__delete(struct session *s)
{
	size_t i;

	if (!s)
		return;
	if (s->text)
		fclose(s->text);
	machine__delete(s->machine);
	perf_data__delete(s->pd);
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	for (i = 0; i < s->nr_msgs; i++)
		free(s->msgs[i].text);
	free(s->msgs);
	free(s);
}

enum session_kind session__kind(const struct session *s)
{
	return s->kind;
}

struct perf_data *session__perf_data(const struct session *s)
{
	return s->pd;
}

/*
 * Symbols are only taken from files whose build id matches the recording;
 * the user-space files it lists are those its samples ran in, which the
 * dso loader reads first.
 */
static void register_build_ids(struct machine *m, struct perf_data *pd)
{
	uint32_t i, n = perf_data__nr_build_ids(pd);

	for (i = 0; i < n; i++) {
		const struct perf_build_id *bid = perf_data__build_id(pd, i);

		if (!bid->filename || machine__add_build_id(m, bid->filename,
							    bid->id,
							    bid->size))
			continue;
		if ((bid->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		    PERF_RECORD_MISC_USER)
			machine__sampled_file(m, bid->filename);
	}
}

struct machine *session__machine(struct session *s)
{
	if (!s->machine) {
		s->machine = machine__new();
		if (s->machine && s->pd)
			register_build_ids(s->machine, s->pd);
		/* A hint: without the thread, symbols load at first use. */
		if (s->machine && s->opts.jobs >= 2)
			machine__load_dsos_ahead(s->machine);
	}
	return s->machine;
}

/* The text reader's stream: the bytes already read, then the rest. */
static ssize_t text_read(void *cookie, char *buf, size_t size)
{
	struct session *s = cookie;
	ssize_t n;

	if (s->prefix_pos < s->prefix_len) {
		n = s->prefix_len - s->prefix_pos < size ?
		    s->prefix_len - s->prefix_pos : size;
		memcpy(buf, s->prefix + s->prefix_pos, n);
		s->prefix_pos += n;
		return n;
	}
	do {
		n = read(s->fd, buf, size);
	} while (n < 0 && errno == EINTR);
	return n;
}

FILE *session__text(struct session *s)
{
	cookie_io_functions_t io = { .read = text_read };

	if (!s->text && s->kind != SESSION_PERF_DATA)
		s->text = fopencookie(s, "r", io);
	return s->text;
}

static int load_vmlinux(struct session *s, const char *path)
{
	int err = machine__load_vmlinux(s->machine, path);

	if (err == -EINVAL)
		session_msg_error(s, "%s: build id differs from the recorded kernel's; give the vmlinux of the kernel that was recorded",
				  path);
	else if (err == -ENODATA)
		session_msg_error(s, "%s: no symbol table (stripped?); give an unstripped vmlinux or --kallsyms",
				  path);
	else if (err == -ENOEXEC)
		session_msg_error(s, "%s: not a vmlinux image; give the uncompressed ELF (not a bzImage) or --kallsyms",
				  path);
	else if (err)
		session_msg_error(s, "%s: cannot read kernel symbols: %s",
				  path, strerror(-err));
	return err;
}

static int load_kallsyms(struct session *s, const char *path)
{
	struct stat sb;
	int err;

	/*
	 * The loader says -ENOENT for a file with no symbol line: name what
	 * the file is instead. A directory is told apart before it is read.
	 */
	if (stat(path, &sb))
		err = -errno;
	else if (S_ISDIR(sb.st_mode))
		err = -EISDIR;
	else
		err = machine__load_kallsyms(s->machine, path);
	if (err == -ENOENT && !stat(path, &sb))
		session_msg_error(s, "%s: not a kallsyms file (no 'ADDRESS TYPE NAME' lines); pass a copy of /proc/kallsyms taken as root",
				  path);
	else if (err == -EISDIR)
		session_msg_error(s, "%s: is a directory; pass a copy of /proc/kallsyms taken as root",
				  path);
	else if (err)
		session_msg_error(s, "%s: cannot read kernel symbols: %s; pass a copy of /proc/kallsyms",
				  path, strerror(-err));
	return err;
}

/* The recording was made on the running kernel: its /proc/kallsyms fits. */
static bool recorded_here(const struct perf_header_info *hdr,
			  struct utsname *uts)
{
	if (uname(uts))
		strcpy(uts->release, "(unknown)");
	return hdr->os_release && !strcmp(hdr->os_release, uts->release);
}

static int decide_kernel_symbols(struct session *s)
{
	const struct perf_header_info *hdr = perf_data__header(s->pd);
	struct utsname uts = { 0 };
	const char *text;
	size_t len;
	int err;

	/* As in perf, --kallsyms wins over --vmlinux. */
	if (s->opts.kallsyms)
		return load_kallsyms(s, s->opts.kallsyms);
	if (s->opts.vmlinux)
		return load_vmlinux(s, s->opts.vmlinux);
	/*
	 * A recording made by `record` carries the kernel's text symbols
	 * (the kallsyms section of its tracing data): they are the ones the
	 * addresses were taken with, even on another machine.
	 */
	if (!perf_data__kallsyms(s->pd, &text, &len)) {
		err = machine__load_kallsyms_buf(s->machine, text, len);
		if (!err && machine__has_kernel_symbols(s->machine))
			return 0;
	}
	if (recorded_here(hdr, &uts)) {
		err = machine__load_kallsyms(s->machine, "/proc/kallsyms");
		if (!err && machine__has_kernel_symbols(s->machine))
			return 0;
		snprintf(s->ksyms_note, sizeof(s->ksyms_note),
			 "/proc/kallsyms gives no addresses (kptr_restrict?); kernel frames stay [unknown]");
		return 0;
	}
	snprintf(s->ksyms_note, sizeof(s->ksyms_note),
		 "recording made on kernel %s, this is %s: kernel frames stay [unknown]; pass --kallsyms FILE captured there",
		 hdr->os_release ? hdr->os_release : "(unknown)", uts.release);
	return 0;
}

/*
 * With a second thread, read the kallsyms text that decide_kernel_symbols()
 * will try first (in its order) while the first records are read and
 * processed, which is about as long as it takes: it is needed at the
 * first sample.
 */
static void prefetch_kernel_symbols(struct session *s)
{
	const struct perf_header_info *hdr = perf_data__header(s->pd);
	const char *path = NULL, *text = NULL;
	struct utsname uts;
	struct stat sb;
	size_t len = 0;

	/* A pipe's tracing data may still come: decided at the sample. */
	if (s->opts.jobs < 2 || s->ksyms_done || hdr->pipe_mode ||
	    !session__machine(s))
		return;
	if (s->opts.kallsyms)
		path = s->opts.kallsyms;
	else if (s->opts.vmlinux)
		return;
	else if (perf_data__kallsyms(s->pd, &text, &len) &&
		 recorded_here(hdr, &uts))
		path = "/proc/kallsyms";
	/* Not a FIFO or a device: the thread must not wait on a writer. */
	if (path && (stat(path, &sb) || !S_ISREG(sb.st_mode)))
		return;
	if (path || text)
		machine__prefetch_kallsyms(s->machine, path, text, len);
}

int session__kernel_symbols(struct session *s)
{
	if (s->ksyms_done)
		return s->ksyms_err;
	s->ksyms_done = true;
	if (!s->pd)
		s->ksyms_err = -EINVAL;
	else if (!session__machine(s))
		s->ksyms_err = -ENOMEM;
	else
		s->ksyms_err = decide_kernel_symbols(s);
	return s->ksyms_err;
}

void session_ksyms_note(struct session *s)
{
	const char *name;
	uint64_t nr;
	int err;

	if (s->ksyms_note[0])
		session_msg_note(s, "%s", s->ksyms_note);
	/* With the symbol notes: files the recording named, not read. */
	nr = s->machine ? machine__refused(s->machine, &name, &err) : 0;
	if (!nr)
		return;
	session_msg_note(s, "%s: not read, %s: anyone can plant files there, so its JIT frames are not named%s",
			 name, err == -ELOOP ? "a symbolic link" :
			 err == -EINVAL ? "not a regular file" :
			 "owned by another user than root, you or the process",
			 nr > 1 ? "; more such files were not read either" :
			 "");
}

struct run_ctx {
	struct session *s;
	rs_event_fn fn;
	void *arg;
};

/* A consumer outside the session: note where it failed. */
static int run_event(void *arg, const struct rs_event *ev)
{
	struct run_ctx *ctx = arg;
	int err = ctx->fn(ctx->arg, ev);

	if (err)
		ctx->s->err_offset = ev->offset;
	return err;
}

/*
 * Formats the reader would not hand to libtraceevent as they are (one
 * could crash it): the samples stay, but the user should know which
 * event's format the recording got wrong.
 */
static void note_bad_formats(struct session *s)
{
	uint32_t i, n = perf_data__nr_bad_formats(s->pd);
	const char *what;

	for (i = 0; (what = perf_data__bad_format(s->pd, i)); i++)
		session_msg_note(s, "bad tracepoint format in the recording (%s): not parsed as it is; its samples are kept",
				 what);
	if (n > i)
		session_msg_note(s, "%u more bad tracepoint formats in the recording were ignored",
				 n - i);
}

/*
 * A file rebuilt since the recording: its frames are not named from the
 * new code (perf shows them as addresses), and the user learns why.
 */
static void note_stale_dsos(struct session *s)
{
	const char *name;
	size_t i;

	if (!s->machine)
		return;
	for (i = 0; (name = machine__stale_dso(s->machine, i)); i++)
		if (i < 5)
			session_msg_note(s, "%s: its build id is not the one recorded (rebuilt since the recording?): its frames are left unnamed, not named from the file there now",
					 name);
	if (i > 5)
		session_msg_note(s, "%zu more files have another build id than the one recorded: their frames are left unnamed",
				 i - 5);
}

void session_kick(void *s)
{
	perf_data__kick(((struct session *)s)->pd);
}

int session_run(struct session *s, rs_event_fn fn, rs_event_fn ahead,
		void *arg)
{
	int err;

	if (!s->pd)
		return -EINVAL;
	s->err_offset = -1;
	if (ahead)
		perf_data__set_lookahead(s->pd, ahead);
	prefetch_kernel_symbols(s);
	err = perf_data__process(s->pd, fn, arg);
	/* After the data: in a pipe the tracing data may come late. */
	note_bad_formats(s);
	note_stale_dsos(s);
	return err;
}

/*
 * The reader's own message names the offset; an error from the consumer
 * (out of memory while folding) gets the offset of the event it was on.
 */
void session_data_error(struct session *s, int err)
{
	const char *msg = s->pd ? perf_data__strerror(s->pd) : "";
	const char *input = s->opts.input;

	if (msg && *msg)
		session_msg_error(s, "%s: %s", input, msg);
	else if (s->err_offset >= 0)
		session_msg_error(s, "%s: offset %" PRId64 ": %s", input,
				  s->err_offset, strerror(-err));
	else
		session_msg_error(s, "%s: %s", input, strerror(-err));
}

int session__process(struct session *s, rs_event_fn fn, void *arg)
{
	struct run_ctx ctx = { .s = s, .fn = fn, .arg = arg };
	int err = session_run(s, run_event, NULL, &ctx);

	/* A kernel symbol error was queued when it happened. */
	if (err && !(s->ksyms_done && s->ksyms_err))
		session_data_error(s, err);
	return err;
}

void session__list_events(const struct session *s, char *buf, size_t len)
{
	uint32_t i, n = s->pd ? perf_data__nr_evsel(s->pd) : 0;
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 perf_data__evsel(s->pd, i)->name);
}

int session__kernel_spans(struct session *s, struct kernel_spans **ksp)
{
	char errbuf[256] = "";
	const char *text;
	int ret;

	*ksp = NULL;
	/* After the data: a pipe carries its features among the records. */
	if (!s->pd || perf_data__rstat_spans(s->pd, &text))
		return 0;
	ret = kernel_spans__parse(ksp, text, strlen(text), errbuf,
				  sizeof(errbuf));
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		session_msg_note(s, "%s: %s; left out of the report",
				 s->opts.input, errbuf);
	return 0;
}

/*
 * cgroup ids name paths only on the machine, and in the boot, they were
 * recorded in: same host name and kernel, and no sample time (perf's
 * clock counts from boot) later than this boot's clock now.
 */
bool session__recorded_here(const struct session *s)
{
	const struct perf_header_info *hdr;
	struct utsname uts;
	struct timespec ts;

	if (!s->pd)
		return false;
	hdr = perf_data__header(s->pd);
	if (uname(&uts) || !hdr->hostname || !hdr->os_release ||
	    strcmp(hdr->hostname, uts.nodename) ||
	    strcmp(hdr->os_release, uts.release) ||
	    clock_gettime(CLOCK_MONOTONIC, &ts))
		return false;
	return hdr->sample_time_end <=
	       (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
