// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze watch: the live view (include/live.h) as a Prometheus
 * exporter. The BPF programs are attached and the socket bound while
 * root; then every privilege is dropped (all capabilities, or the user
 * of --user) before the HTTP thread starts, since reading the maps
 * through the descriptors already open needs none. Every interval the
 * maps are read and the metrics rendered once; scrapes copy that text
 * (include/metrics-http.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <math.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "live-out.h"
#include "live.h"
#include "metrics-http.h"
#include "parse-options.h"
#include "util.h"

/* Outside 9100-9999, the exporters' range Prometheus keeps (all taken). */
#define WATCH_PORT 19193
#define WATCH_PORT_STR "19193"

static volatile sig_atomic_t watch_stop, watch_hup;

static void watch_on_signal(int sig)
{
	if (sig == SIGHUP)
		watch_hup = 1;
	else
		watch_stop = sig;
}

static const char watch_about[] =
	"Serve what rstat flushes cost as Prometheus metrics (text format\n"
	"0.0.4) on http://127.0.0.1:" WATCH_PORT_STR "/metrics: flushes by subsystem,\n"
	"trigger and cgroup level, lock contention and yields, memcg flush\n"
	"decisions, histograms of flush, hold and wait times in seconds, the\n"
	"sources this kernel lacks and what the exporter costs. Timed in the\n"
	"kernel by the BPF programs `record --spans bpf` uses; needs root to\n"
	"start, then drops every capability (or becomes --user). GET /metrics\n"
	"only. SIGTERM or SIGINT stops and detaches; SIGHUP reads the kernel\n"
	"symbols again.\n";

/* "A.B.C.D:PORT" or "[V6]:PORT" into addr; 0 or -EINVAL. */
static int parse_listen(const char *s, struct sockaddr_storage *addr,
			socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':');
	size_t hl;
	char *end;
	long port;

	if (!colon)
		return -EINVAL;
	hl = (size_t)(colon - s);
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port < 0 || port > 65535 ||
	    !hl || hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(addr, 0, sizeof(*addr));
	if (host[0] == '[' && host[hl - 1] == ']') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;

		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			return -EINVAL;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)addr;

		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return -EINVAL;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
	}
	return 0;
}

/*
 * Drop every privilege for good: no capability in any set nor in the
 * bounding set, no_new_privs; with pw, that user's ids first. Runs while
 * this is the only thread (capset is per thread). 0 or -errno.
 */
static int drop_privileges(const struct passwd *pw)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int cap;

	if (pw) {
		if (setgroups(0, NULL) || setgid(pw->pw_gid) ||
		    setuid(pw->pw_uid))
			return -errno;
	}
	for (cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

/* Whether this process can see kernel symbol addresses (kptr_restrict). */
static bool kallsyms_visible(void)
{
	unsigned long long addr = 0;
	FILE *f = fopen("/proc/kallsyms", "re");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llx", &addr) == 1 && addr;
	fclose(f);
	return ok;
}

/* Render snap and the HTTP counters; publish. 0 or -ENOMEM. */
static int publish(struct metrics_http *h, const struct live_snap *snap,
		   uint64_t sample_errors)
{
	struct metrics_http_stats st;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	live_out__prometheus(f, snap);
	metrics_http__stats(h, &st);
	fputs("# HELP rstat_exporter_http_requests_total HTTP requests answered, by status code.\n"
	      "# TYPE rstat_exporter_http_requests_total counter\n", f);
	fprintf(f, "rstat_exporter_http_requests_total{code=\"200\"} %llu\n",
		(unsigned long long)st.ok);
	fprintf(f, "rstat_exporter_http_requests_total{code=\"404\"} %llu\n",
		(unsigned long long)st.not_found);
	fprintf(f, "rstat_exporter_http_requests_total{code=\"405\"} %llu\n",
		(unsigned long long)st.bad_method);
	fputs("# HELP rstat_exporter_read_errors_total Reads of the BPF maps that failed (the metrics then stay as they were).\n"
	      "# TYPE rstat_exporter_read_errors_total counter\n", f);
	fprintf(f, "rstat_exporter_read_errors_total %llu\n",
		(unsigned long long)sample_errors);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	err = metrics_http__publish(h, text, len);
	free(text);
	return err;
}

static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (!watch_stop && !watch_hup &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

int cmd_watch(int argc, char **argv)
{
	const char *listen_arg = "127.0.0.1:" WATCH_PORT_STR, *user = NULL;
	struct metrics_http_opts ho = { .max_connections = 64 };
	struct live_opts lo = { .cgroup_paths = false };
	struct rs_cgroup_ids cg = { .nr = 0 };
	struct sockaddr_storage addr;
	struct passwd pwbuf, *pw = NULL;
	struct metrics_http *h = NULL;
	struct live_snap *snap = NULL;
	double interval = 1, duration = 0, start, next;
	uint64_t sample_errors = 0;
	struct live *l = NULL;
	char errbuf[512] = "", pwstr[4096];
	socklen_t addrlen = 0;
	int err, status = RS_EXIT_FAIL;
	const struct popt opts[] = {
		POPT_GROUP("Options:"),
		{ POPT_STRING('l', "listen", &listen_arg, "ADDR:PORT",
			      "where to listen (default 127.0.0.1:"
			      WATCH_PORT_STR ";\n"
			      "[ADDR]:PORT for IPv6; port 0: any free one)") },
		{ POPT_DOUBLE('i', "interval", &interval, "SECONDS", 0.01, 3600,
			      "how often the maps are read (default 1)"),
		  .hint = "give seconds from 0.01 to 3600",
		  .flags = POPT_SAY_LONG },
		{ POPT_STRING('u', "user", &user, "USER",
			      "run as USER after attaching (default: stay\n"
			      "root without any capability)") },
		{ POPT_DOUBLE('d', "duration", &duration, "SECONDS", 0.01,
			      86400 * 365.0,
			      "stop after this long (default: until signalled)"),
		  .hint = "give seconds (at least 0.01)",
		  .flags = POPT_SAY_LONG },
		{ POPT_CALLBACK(0, "cgroup", &cg, "PATH", rs_cgroup_option,
				"only flushes of this cgroup (repeatable)"),
		  .flags = POPT_REPEAT },
		{ POPT_FLAG(0, "no-stacks", &lo.no_stacks,
			    "no kernel stacks: cheaper, subsystems unknown") },
		POPT_HELP_ROW,
		POPT_END_ROW,
	};
	const struct popt_cmd cmd = {
		.name = "watch",
		.opts = opts,
		.max_operands = 0,
		.help_column = 26,
		.about = watch_about,
	};
	struct popt_args args;

	err = rs_parse_options(&cmd, argc, argv, &args);
	if (err)
		return err < 0 ? rs_finish_stdout(RS_EXIT_OK) : err;
	free(args.operands);
	if (parse_listen(listen_arg, &addr, &addrlen)) {
		rs_error("watch: --listen '%s': give ADDR:PORT (127.0.0.1:" WATCH_PORT_STR ", [::1]:" WATCH_PORT_STR ")",
			 listen_arg);
		return RS_EXIT_USAGE;
	}
	if (user) {
		/* Looked up now: NSS may need files the dropped user lacks. */
		errno = getpwnam_r(user, &pwbuf, pwstr, sizeof(pwstr), &pw);
		if (!pw) {
			rs_error("watch: --user %s: %s", user,
				 errno ? strerror(errno) : "no such user");
			return RS_EXIT_USAGE;
		}
	}
	if (!metrics_http__available()) {
		metrics_http__start(&ho, &h, errbuf, sizeof(errbuf));
		rs_error("watch: %s", errbuf);
		return RS_EXIT_FAIL;
	}
	if (geteuid()) {
		rs_error("watch: loading BPF programs needs root; start it as root (it drops its privileges after attaching, or runs as --user)");
		return RS_EXIT_FAIL;
	}
	lo.cgroup_ids = cg.ids;
	lo.nr_cgroup_ids = cg.nr;
	snap = calloc(1, sizeof(*snap));
	l = live__new(&lo);
	if (!snap || !l) {
		rs_error("watch: out of memory");
		goto out;
	}
	watch_stop = watch_hup = 0;
	rs_on_stop_signals(watch_on_signal);
	err = live__open(l, errbuf, sizeof(errbuf));
	if (err) {
		rs_error("watch: %s", errbuf);
		goto out;
	}
	/* Before the drop: kptr_restrict may hide them from us after it. */
	if (!lo.no_stacks)
		live__load_symbols(l);
	err = drop_privileges(pw);
	if (err) {
		rs_error("watch: dropping privileges: %s", strerror(-err));
		goto out;
	}
	ho.addr = (const struct sockaddr *)&addr;
	ho.addrlen = addrlen;
	/*
	 * The HTTP thread starts with nothing left to drop; so a port below
	 * 1024 is refused (EACCES): give another one.
	 */
	err = metrics_http__start(&ho, &h, errbuf, sizeof(errbuf));
	if (err) {
		rs_error("watch: --listen %s: %s", listen_arg, errbuf);
		goto out;
	}
	/* Metrics from the start: a scrape never sees an empty page. */
	err = live__sample(l, snap, errbuf, sizeof(errbuf));
	if (!err)
		err = publish(h, snap, 0);
	if (err) {
		rs_error("watch: %s", errbuf[0] ? errbuf : strerror(-err));
		goto out;
	}
	{
		char host[INET6_ADDRSTRLEN] = "?";

		if (addr.ss_family == AF_INET6)
			inet_ntop(AF_INET6,
				  &((struct sockaddr_in6 *)&addr)->sin6_addr,
				  host, sizeof(host));
		else
			inet_ntop(AF_INET,
				  &((struct sockaddr_in *)&addr)->sin_addr,
				  host, sizeof(host));
		rs_note("watch: serving http://%s%s%s:%d/metrics (%s); %s",
			addr.ss_family == AF_INET6 ? "[" : "", host,
			addr.ss_family == AF_INET6 ? "]" : "",
			metrics_http__port(h), snap->method ? snap->method :
			"BPF programs attached",
			pw ? "privileges dropped: running as --user" :
			"privileges dropped: no capability left (uid 0, no_new_privs)");
	}

	start = next = rs_now_s();
	while (!watch_stop) {
		if (watch_hup) {
			watch_hup = 0;
			/* Without root's view of kallsyms, keep ours. */
			if (kallsyms_visible())
				live__reload(l);
			else
				rs_note("watch: SIGHUP: kernel symbols not visible after the privilege drop (kptr_restrict); kept the ones read at start");
		}
		err = live__sample(l, snap, errbuf, sizeof(errbuf));
		if (err) {
			/* Say it once per kind of failure; keep serving. */
			if (!sample_errors++)
				rs_note("watch: %s", errbuf);
		} else if (publish(h, snap, sample_errors)) {
			sample_errors++;
		}
		if (duration > 0 && rs_now_s() >= start + duration)
			break;
		next += interval;
		if (duration > 0 && next > start + duration)
			next = start + duration;
		if (next < rs_now_s() - interval)
			next = rs_now_s();
		sleep_until(next);
	}
	status = RS_EXIT_OK;
out:
	metrics_http__stop(h);
	/* Detaching needs no privilege: closing the descriptors does it. */
	live__delete(l);
	free(snap);
	return rs_finish_stdout(status);
}
