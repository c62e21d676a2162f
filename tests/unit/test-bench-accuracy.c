// SPDX-License-Identifier: GPL-2.0
/*
 * bench accuracy's pure parts: the anon and file figures of memory.stat
 * in both hierarchies' spellings (keys that are prefixes of others
 * included), and MEMCG_CHARGE_BATCH by kernel release.
 */
#include <errno.h>

#include "bench-accuracy.h"
#include "unit.h"

/* The head of a v1 memory.stat (6.18), local figures before total_. */
static const char v1_stat[] =
	"cache 8192\n"
	"rss 4096\n"
	"rss_huge 0\n"
	"shmem 0\n"
	"mapped_file 0\n"
	"total_cache 1232896\n"
	"total_rss_huge 2097152\n"
	"total_rss 1859584\n"
	"total_shmem 0\n";

/* v2: anon_thp and file_mapped come after anon and file; reordered here. */
static const char v2_stat[] =
	"anon_thp 2097152\n"
	"file_mapped 12288\n"
	"anon 5353472\n"
	"file 24576\n"
	"kernel 1052672\n";

static void test_parse_v1(void)
{
	uint64_t anon = 1, file = 1;

	CHECK_INT(bench_accuracy__parse_stat(v1_stat, &anon, &file), 0);
	CHECK_U64(anon, 1859584);
	CHECK_U64(file, 1232896);
}

static void test_parse_v2(void)
{
	uint64_t anon = 1, file = 1;

	CHECK_INT(bench_accuracy__parse_stat(v2_stat, &anon, &file), 0);
	CHECK_U64(anon, 5353472);
	CHECK_U64(file, 24576);
}

static void test_parse_missing(void)
{
	uint64_t anon, file;

	CHECK_INT(bench_accuracy__parse_stat("", &anon, &file), -ENOENT);
	CHECK_INT(bench_accuracy__parse_stat("anon 1\n", &anon, &file),
		  -ENOENT);
	CHECK_INT(bench_accuracy__parse_stat("total_rss 1\ncache 2\n", &anon,
					     &file), -ENOENT);
	CHECK_INT(bench_accuracy__parse_stat("anon_thp 1\nfile_dirty 2\n",
					     &anon, &file), -ENOENT);
}

static void test_charge_batch(void)
{
	CHECK_INT(bench_accuracy__charge_batch("5.15.0-91-generic"), 32);
	CHECK_INT(bench_accuracy__charge_batch("6.0.19"), 32);
	CHECK_INT(bench_accuracy__charge_batch("6.1.0-28-amd64"), 64);
	CHECK_INT(bench_accuracy__charge_batch("6.18.44-fc-v1045"), 64);
	CHECK_INT(bench_accuracy__charge_batch("10.2"), 64);
	/* Unknown: the older, smaller batch, the tighter bound. */
	CHECK_INT(bench_accuracy__charge_batch("garbage"), 32);
	CHECK_INT(bench_accuracy__charge_batch(NULL), 32);
}

UNIT_MAIN(UNIT(test_parse_v1), UNIT(test_parse_v2), UNIT(test_parse_missing),
	  UNIT(test_charge_batch))
