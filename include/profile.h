/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile `report --json` writes, typed (src/output/profile.c): what
 * plot and compare read of it, so that neither looks members up by name.
 * The member names are defined here once, for the writer
 * (src/output/report-out.c) and the reader alike.
 *
 * The reader is lenient on purpose: it keeps what the document holds and
 * marks what is missing or of the wrong type, and each consumer refuses
 * what it needs and lacks, in its own words (plot draws from fewer
 * members than compare compares).
 */
#ifndef RS_PROFILE_H
#define RS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json-read.h"

/* Members of report --json that plot and compare read. */
#define PROFILE_ATTRIBUTION	"attribution"
#define PROFILE_TRIGGERS	"triggers"
#define PROFILE_SPANS		"spans"
#define PROFILE_KERNEL_SPANS	"kernel_spans"	/* {"spans": [...]} */
#define PROFILE_P50		"p50"		/* [LOW, HIGH] ns */
#define PROFILE_P90		"p90"
#define PROFILE_P99		"p99"
#define PROFILE_EVENT		"event"
#define PROFILE_CATEGORY	"category"
#define PROFILE_TRIGGER		"trigger"
#define PROFILE_SHARE		"share"
#define PROFILE_FLUSH_SHARE	"flush_share"
#define PROFILE_NAME		"name"
#define PROFILE_SUBSYSTEM	"subsystem"
#define PROFILE_COUNT		"count"
#define PROFILE_P50_NS		"p50_ns"
#define PROFILE_P90_NS		"p90_ns"
#define PROFILE_P99_NS		"p99_ns"
#define PROFILE_HIST		"hist"
#define PROFILE_LOW		"low"
#define PROFILE_HIGH		"high"

/* A number as read: ok when present and a number at all. */
struct profile_num {
	bool ok;
	bool exact;		/* a non-negative integer within u64: u */
	double num;
	uint64_t u;
};

/* An array member: absent, present but no array, or an array. */
enum profile_section {
	PROFILE_ABSENT,
	PROFILE_NOT_ARRAY,
	PROFILE_ARRAY,
};

/* A row of "attribution" (name: its category) or "triggers" (trigger). */
struct profile_share {
	const char *event, *name;	/* NULL when absent or no string */
	struct profile_num share;
	struct profile_num flush_share;	/* attribution only */
};

/* A log2 row of a span's "hist", bounds as hist__row_bounds() makes. */
struct profile_hist_row {
	struct profile_num low, high, count;
};

/*
 * A span of "spans", or of "kernel_spans" (timed in the kernel by BPF):
 * its percentiles are then log2 buckets, p50_ns... their high ends.
 */
struct profile_span {
	const char *name, *subsystem;	/* NULL when absent or no string */
	struct profile_num count, p50_ns, p90_ns, p99_ns;
	bool kernel;			/* of "kernel_spans" */
	bool has_hist;			/* "hist" is an array */
	struct profile_hist_row *hist;
	size_t nr_hist;
};

struct profile {
	enum profile_section attribution_sec, triggers_sec, spans_sec;
	/*
	 * The share rows stay in doc and are typed one at a time
	 * (profile__share()): a typed row costs tens of times the 3 bytes
	 * of a crafted "{}," row, and readers skip some rows and stop at
	 * others, so no cut-off would serve them all.
	 */
	const struct jv *attribution, *triggers;	/* arrays, or NULL */
	size_t nr_attribution, nr_triggers;
	struct profile_span *spans;
	size_t nr_spans;
	/* "kernel_spans"."spans" (absent also when kernel_spans is null) */
	enum profile_section kspans_sec;
	struct profile_span *kspans;
	size_t nr_kspans;
	struct jv doc;			/* holds the strings above */
};

/*
 * Read a report --json document into *out, taking doc over (it is
 * emptied; its strings live as long as the profile). 0 or -ENOMEM (doc
 * then still freed). A document of another kind gives a profile with
 * every section PROFILE_ABSENT.
 */
int profile__from_json(struct profile **out, struct jv *doc);
/* Row i of rows (p->attribution or p->triggers, i < its nr_), typed. */
void profile__share(const struct jv *rows, size_t i, const char *name_key,
		    struct profile_share *out);
void profile__delete(struct profile *p);

struct json_writer;

/*
 * A log2 row of a "hist" array as report --json writes it (and compare
 * --format json after it): {"low", "high", "count"}.
 */
void profile__json_hist_row(struct json_writer *jw, uint64_t low,
			    uint64_t high, uint64_t count);

/*
 * The reverse: the bucket index of a row {low, high} as
 * hist__row_bounds() makes it, -1 when it is no such row. plot and
 * compare bin the rows of report --json and of bench results with it.
 */
int profile__hist_row_index(uint64_t low, uint64_t high);

#endif
