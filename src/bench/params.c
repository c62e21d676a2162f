// SPDX-License-Identifier: GPL-2.0
/*
 * A bench run's parameters (struct bench_params in bench-run.h): their
 * defaults and the values options give them. A refused value says why in
 * p->why; the command reports it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-run.h"
#include "util.h"

const char *const scenario_names[SC_ACCURACY + 1] = {
	"stat-read", "many-cgroups", "pipe", "fault", "accuracy",
};

const char *const kind_names[ACC_BOTH + 1] = { "anon", "file", "both" };

const char *const updater_names[UPD_BOTH + 1] = { "memory", "cpu", "both" };

const char *const psi_names[PSI_OFF + 1] = { "both", "on", "off" };

void bench_params__init(struct bench_params *p, int argc, char **argv)
{
	static char *default_files[] = {
		"cgroup.stat", "cpu.stat", "memory.stat", "io.stat",
	};
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->reps = 1;
	p->depth = 1;
	p->updater = UPD_BOTH;
	p->reads = 0;
	p->interleave = true;
	p->cgroups = 2500;
	p->round_trips = 100000;
	p->duration = 3;
	p->kind = ACC_BOTH;
	p->interval_ms = 10;
	p->rate = 200;
	p->step = 1;
	p->argc = argc;
	p->argv = argv;
	for (i = 0; i < ARRAY_SIZE(default_files); i++)
		p->files[p->nr_files++] = default_files[i];
	/*
	 * No scenario named: the main job, small enough for a minute on 2
	 * CPUs, recorded and reported. Options (--root in a container, -o)
	 * change it but do not turn it into a bare stat-read.
	 */
	p->main_job = argc == 1 || argv[1][0] == '-';
	if (p->main_job) {
		p->record = true;
		p->children = 26;
		p->reads = 2000;
	}
}

/* The scenario's own defaults for what no option gave. */
void bench_params__finish(struct bench_params *p)
{
	if (!p->reads)
		p->reads = p->scenario == SC_ACCURACY ? 200 : 1000;
	/* The recorded pass of a reader decomposes its reads too. */
	if (p->record && (p->scenario == SC_STAT_READ ||
			  p->scenario == SC_MANY_CGROUPS))
		p->breakdown = true;
	if (!p->children)
		p->children = p->scenario == SC_FAULT ? 0 :
			      p->scenario == SC_ACCURACY ? 4 : 26;
}

void bench_params__free(struct bench_params *p)
{
	size_t i;

	for (i = 0; i < p->nr_variants; i++) {
		free(p->variants[i].opts);
		free(p->variants[i].opts_buf);
		free(p->variants[i].p.files_buf);
	}
	free(p->variants);
	p->variants = NULL;
	p->nr_variants = 0;
	free(p->files_buf);
	p->files_buf = NULL;
}

int bench_params__count(struct bench_params *p, const char *opt,
			const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || !*out || *out > max) {
		errbuf_set(p->why, sizeof(p->why),
			   "%s '%s': give a number from 1 to %" PRIu64, opt, s,
			   max);
		return -EINVAL;
	}
	return 0;
}

/* A positive number up to max (--rate, --interval). */
int bench_params__number(struct bench_params *p, const char *opt,
			 const char *s, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || *out > max) {
		errbuf_set(p->why, sizeof(p->why), "%s '%s': give a number above 0, at most %g",
			 opt, s, max);
		return -EINVAL;
	}
	return 0;
}

/* SIZE with an optional K, M or G suffix (powers of 1024). */
int bench_params__size(struct bench_params *p, const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || !v || v > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	errbuf_set(p->why, sizeof(p->why), "--memory-max '%s': give a size like 512M", s);
	return -EINVAL;
}

/*
 * The cgroup files a reader may time: the stat files that flush (or, as
 * cgroup.stat and cpu.stat.local, do not) and the usual counters beside
 * them, v2 and v1 names. A typo is a usage error, not a run that reads
 * nothing.
 */
static const char *const known_files[] = {
	"cgroup.stat", "cgroup.events", "cpu.stat", "cpu.stat.local",
	"cpu.pressure", "memory.stat", "memory.numa_stat", "memory.current",
	"memory.peak", "memory.events", "memory.events.local",
	"memory.pressure", "memory.swap.current", "memory.zswap.current",
	"io.stat", "io.pressure", "pids.current", "memory.usage_in_bytes",
	"memory.max_usage_in_bytes", "cpuacct.stat", "cpuacct.usage",
	"cpuacct.usage_percpu",
};

static bool known_file(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_files); i++)
		if (!strcmp(name, known_files[i]))
			return true;
	return false;
}

int bench_params__files(struct bench_params *p, const char *arg)
{
	char *tok, *save = NULL, *list;

	/* A copy: argv stays whole for the results' command_line. */
	free(p->files_buf);
	list = p->files_buf = strdup(arg);
	if (!list) {
		errbuf_set(p->why, sizeof(p->why), "out of memory");
		return -ENOMEM;
	}
	p->nr_files = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (p->nr_files == BENCH_MAX_FILES) {
			errbuf_set(p->why, sizeof(p->why), "--files: give at most %d file names of the parent cgroup, comma-separated",
				 BENCH_MAX_FILES);
			return -EINVAL;
		}
		if (!known_file(tok)) {
			errbuf_set(p->why, sizeof(p->why), "--files: '%s' is not a cgroup stat file bench knows (cgroup.stat, cpu.stat, cpu.stat.local, memory.stat, memory.numa_stat, io.stat, the *.pressure and *.current files...)",
				 tok);
			return -EINVAL;
		}
		p->files[p->nr_files++] = tok;
	}
	if (!p->nr_files) {
		errbuf_set(p->why, sizeof(p->why), "--files needs at least one file name");
		return -EINVAL;
	}
	return 0;
}

void bench__recording_path(const struct bench_params *p, char *buf,
			   size_t len)
{
	if (p->outdir)
		snprintf(buf, len, "%s/rstat.data", p->outdir);
	else
		snprintf(buf, len, "rstat.data");
}
