// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-spans-run: time rstat lock holds, waits and flushes in the kernel
 * (bpf-spans.h) while a command runs, then print one line per kind and
 * subsystem, for scripts/observer-effect-bpf.sh until record, report and
 * bench carry the module themselves.
 *
 * Usage: bpf-spans-run [-p PID]... [-c CGROUP_ID]... [-n] [-v] -- CMD...
 *   -p  only these processes; -c only flushes of these cgroups (ids, or
 *       paths of v2 cgroups); -n no stacks (no subsystem); -v print the
 *       rows (one per kernel stack) too.
 * Output lines:
 *   KIND SUBSYS count=N p50=[LO,HI] avg=NS min=NS max=NS
 * where SUBSYS is a category name, "unknown" or "any". Exit status 2 with
 * the reason on stderr when BPF is unavailable.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf-spans.h"
#include "kernel-spans.h"
#include "rules.h"

static void print_hist(const char *kind, const char *subsys,
		       const struct bpf_spans_hist *h)
{
	uint64_t lo, hi;

	if (!h || !h->count)
		return;
	bpf_spans_hist__percentile(h, 50, &lo, &hi);
	printf("%s %s count=%llu p50=[%llu,%llu] avg=%llu min=%llu max=%llu\n",
	       kind, subsys, (unsigned long long)h->count,
	       (unsigned long long)lo, (unsigned long long)hi,
	       (unsigned long long)(h->sum / h->count),
	       (unsigned long long)h->min, (unsigned long long)h->max);
}

int main(int argc, char **argv)
{
	struct bpf_spans_opts o = { 0 };
	static pid_t pids[64];
	static uint64_t ids[64];
	struct bpf_spans_counts c;
	struct kernel_spans *ks;
	struct span_classifier *sc;
	struct bpf_spans *s;
	char err[512] = "";
	int opt, verbose = 0, status, k, cat;
	pid_t child;

	while ((opt = getopt(argc, argv, "+p:c:nv")) != -1) {
		switch (opt) {
		case 'p':
			if (o.nr_tgids < 64)
				pids[o.nr_tgids++] = atoi(optarg);
			break;
		case 'c': {
			struct stat st;

			if (o.nr_cgroup_ids >= 64)
				break;
			if (optarg[0] == '/') {
				if (stat(optarg, &st)) {
					perror(optarg);
					return 1;
				}
				ids[o.nr_cgroup_ids++] = st.st_ino;
			} else {
				ids[o.nr_cgroup_ids++] =
					strtoull(optarg, NULL, 0);
			}
			break;
		}
		case 'n':
			o.no_stacks = true;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr,
				"usage: bpf-spans-run [-p PID]... [-c CGROUP]... [-n] [-v] -- CMD...\n");
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "bpf-spans-run: no command\n");
		return 1;
	}
	o.tgids = pids;
	o.cgroup_ids = ids;
	s = bpf_spans__new(&o);
	if (!s)
		return 1;
	if (bpf_spans__open(s, err, sizeof(err)) ||
	    bpf_spans__attach(s, err, sizeof(err))) {
		fprintf(stderr, "bpf-spans-run: %s\n", err);
		bpf_spans__delete(s);
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("bpf-spans-run: fork");
		bpf_spans__delete(s);
		return 1;
	}
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (bpf_spans__read(s, err, sizeof(err))) {
		fprintf(stderr, "bpf-spans-run: %s\n", err);
		bpf_spans__delete(s);
		return 1;
	}
	ks = kernel_spans__from_bpf(s, "bpf-spans-run");
	sc = span_classifier__new(NULL);
	if (!ks || !sc) {
		fprintf(stderr, "bpf-spans-run: out of memory\n");
		kernel_spans__delete(ks);
		span_classifier__delete(sc);
		bpf_spans__delete(s);
		return 1;
	}
	for (k = 0; k < BPF_SPANS__NR_KINDS; k++) {
		const char *kind = bpf_spans_kind_name(k);

		print_hist(kind, "any", kernel_spans__hist(ks, k,
							   BPF_SPANS_ANY));
		print_hist(kind, "unknown", kernel_spans__hist(ks, k, -1));
		for (cat = 0; cat < RS_CAT__NR; cat++)
			print_hist(kind, rs_category_name(cat),
				   kernel_spans__hist(ks, k, cat));
	}
	kernel_spans__counts(ks, &c);
	printf("counts locked=%llu pairs=%llu unmatched=%llu+%llu contended=%llu waits=%llu flushes=%llu broken=%llu memcg=%llu/%llu stack_errors=%llu unresolved=%llu\n",
	       (unsigned long long)c.locked, (unsigned long long)c.pairs,
	       (unsigned long long)c.unmatched_start,
	       (unsigned long long)c.unmatched_end,
	       (unsigned long long)c.contended,
	       (unsigned long long)c.wait_pairs,
	       (unsigned long long)c.flushes,
	       (unsigned long long)c.flush_broken,
	       (unsigned long long)c.memcg_performed,
	       (unsigned long long)c.memcg_requested,
	       (unsigned long long)c.stack_errors,
	       (unsigned long long)c.unresolved);
	if (verbose) {
		const struct bpf_spans_row *rows;
		size_t nr, i;
		uint32_t f;

		bpf_spans__rows(s, &rows, &nr);
		for (i = 0; i < nr; i++) {
			struct span_class cl;

			span_classifier__row(sc, &rows[i], &cl);
			printf("row %s root=%d%s subsys=%s trigger=%s count=%llu:",
			       bpf_spans_kind_name(rows[i].kind),
			       rows[i].root,
			       rows[i].short_lock ? " cpu=-1" : "",
			       cl.subsys < 0 ? "unknown" :
			       rs_category_name(cl.subsys),
			       rs_trigger_name(cl.trigger),
			       (unsigned long long)rows[i].hist.count);
			for (f = 0; f < rows[i].nr_frames; f++)
				printf(" %s", rows[i].frames[f] ?
				       rows[i].frames[f] : "?");
			printf("\n");
		}
	}
	span_classifier__delete(sc);
	kernel_spans__delete(ks);
	bpf_spans__delete(s);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
