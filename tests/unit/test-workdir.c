// SPDX-License-Identifier: GPL-2.0
/*
 * Work directories and owner stamps against what another
 * local user could plant: links and directories under the names the tool
 * uses, in directories everyone can write. The planting is done as root
 * with chown to nobody's uid, which is what such a user would own.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "workdir.h"

/* Planting as another user's files takes chown: root only. */
static bool can_plant(void)
{
	if (geteuid() == 0)
		return true;
	SKIP("not root: cannot plant files owned by another user");
	return false;
}

static uid_t nobody_uid(void)
{
	struct passwd *pw = getpwnam("nobody");

	return pw ? pw->pw_uid : 65534;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

static bool is_link(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		UNIT_FAIL("%s: %s", path, strerror(errno));
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* A victim directory with one file whose text must survive. */
static const char *make_victim(const char *name)
{
	const char *dir = unit_tmp_path(name);
	char file[512];

	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/precious", dir);
	spit(file, "do not delete\n");
	return dir;
}

static bool victim_intact(const char *dir)
{
	char file[512];
	const char *t;

	snprintf(file, sizeof(file), "%s/precious", dir);
	t = slurp(file);
	return t && !strcmp(t, "do not delete\n");
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static void test_stamp(void)
{
	char st[OWNER_STAMP_MAX], forged[OWNER_STAMP_MAX], boot[64];
	char *p;

	CHECK_INT(owner_stamp__self(st, sizeof(st), "bench"), 0);
	CHECK(!strncmp(st, "rstat-analyze bench pid=", 24));
	CHECK_INT(owner_stamp__alive(st, "bench"), 1);
	CHECK_INT(owner_stamp__alive(st, NULL), 1);
	/* Another kind's stamp is no stamp of ours. */
	CHECK_INT(owner_stamp__alive(st, "vm"), -EINVAL);
	CHECK_INT(owner_stamp__alive("rstat-analyze bench pid=1", "bench"),
		  -EINVAL);
	CHECK_INT(owner_stamp__alive("garbage", "bench"), -EINVAL);
	CHECK_INT(owner_stamp__alive("", NULL), -EINVAL);
	/* Our PID with another start time: a recycled PID, gone. */
	p = strstr(st, "boot=");
	snprintf(boot, sizeof(boot), "%s", p ? p + 5 : "");
	boot[strcspn(boot, "\n")] = '\0';
	snprintf(forged, sizeof(forged),
		 "rstat-analyze bench pid=%d start=1 boot=%s\n", (int)getpid(),
		 boot);
	CHECK_INT(owner_stamp__alive(forged, "bench"), 0);
	/* A dead PID, and our own from an earlier boot. */
	snprintf(forged, sizeof(forged),
		 "rstat-analyze bench pid=%d start=1 boot=%s\n",
		 (int)dead_pid(), boot);
	CHECK_INT(owner_stamp__alive(forged, "bench"), 0);
	snprintf(forged, sizeof(forged), "%.*sboot=not-this-boot\n",
		 (int)(p - st), st);
	CHECK_INT(owner_stamp__alive(forged, "bench"), 0);
}

static void test_new_delete(void)
{
	const char *base = unit_tmp_path("base-new");
	struct workdir *wd = NULL;
	char err[256], path[512], *stamp;
	struct stat st;
	int fd;

	mkdir(base, 0755);
	CHECK_INT(workdir__new(&wd, "bench", base, err, sizeof(err)), 0);
	if (!wd)
		return;
	CHECK(!strncmp(workdir__path(wd), base, strlen(base)));
	CHECK(strstr(workdir__path(wd), "/rstat-analyze-bench.") != NULL);
	CHECK(!lstat(workdir__path(wd), &st) && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 0777) == 0700 && st.st_uid == geteuid());
	snprintf(path, sizeof(path), "%s/.owner", workdir__path(wd));
	stamp = slurp(path);
	CHECK(stamp && owner_stamp__alive(stamp, "bench") == 1);
	/* Files made through the descriptor land inside. */
	fd = openat(workdir__fd(wd), "f", O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(mkdirat(workdir__fd(wd), "sub", 0700) == 0);
	snprintf(path, sizeof(path), "%s", workdir__path(wd));
	CHECK_INT(workdir__delete(wd), 0);
	CHECK(!is_dir(path));
	/* Two in a row get two names. */
	{
		struct workdir *a = NULL, *b = NULL;

		CHECK_INT(workdir__new(&a, "bench", base, err, sizeof(err)), 0);
		CHECK_INT(workdir__new(&b, "bench", base, err, sizeof(err)), 0);
		if (a && b)
			CHECK(strcmp(workdir__path(a), workdir__path(b)));
		workdir__delete(a);
		workdir__delete(b);
	}
}

/* A base others could plant in, or a link, is refused and named. */
static void test_bad_base(void)
{
	const char *open_base = unit_tmp_path("base-open");
	const char *sticky = unit_tmp_path("base-sticky");
	const char *link = unit_tmp_path("base-link");
	struct workdir *wd = NULL;
	char err[256];

	mkdir(open_base, 0777);
	chmod(open_base, 0777);
	CHECK_INT(workdir__new(&wd, "bench", open_base, err, sizeof(err)),
		  -EPERM);
	CHECK(wd == NULL && strstr(err, open_base) != NULL);
	mkdir(sticky, 0777);
	chmod(sticky, 01777);
	CHECK_INT(workdir__new(&wd, "bench", sticky, err, sizeof(err)), 0);
	workdir__delete(wd);
	wd = NULL;
	if (symlink(sticky, link) == 0) {
		CHECK_INT(workdir__new(&wd, "bench", link, err,
				       sizeof(err)), -ENOTDIR);
		CHECK(strstr(err, "link") != NULL);
	}
	CHECK(wd == NULL);
}

struct noted {
	char why[8][128];
	char path[8][512];
	int nr;
};

static void note(void *ctx, const char *path, const char *why)
{
	struct noted *n = ctx;

	if (n->nr < 8) {
		snprintf(n->path[n->nr], sizeof(n->path[0]), "%s", path);
		snprintf(n->why[n->nr++], sizeof(n->why[0]), "%s", why);
	}
}

static bool noted(const struct noted *n, const char *path)
{
	int i;

	for (i = 0; i < n->nr; i++)
		if (!strcmp(n->path[i], path))
			return true;
	return false;
}

/*
 * In a sticky, world-writable base: a dead run of ours is removed (links
 * inside it removed, not followed); a link, another user's directory
 * with a forged stamp, a directory of ours without a stamp, and a live
 * run are left alone, all but the live run named.
 */
static void test_cleanup_stale(void)
{
	const char *base = unit_tmp_path("base-stale");
	const char *victim = make_victim("victim-stale");
	char dead[512], link[512], foreign[512], nostamp[512], file[600];
	char stamp[OWNER_STAMP_MAX], *p;
	struct workdir *live = NULL;
	struct noted n = { .nr = 0 };
	unsigned int removed = 0;
	char err[256];
	int i;

	if (!can_plant())
		return;

	mkdir(base, 0777);
	chmod(base, 01777);
	CHECK_INT(workdir__new(&live, "bench", base, err, sizeof(err)), 0);
	CHECK_INT(owner_stamp__self(stamp, sizeof(stamp), "bench"), 0);
	p = strstr(stamp, " start=");
	if (!p || !live)
		return;
	snprintf(dead, sizeof(dead), "%s/rstat-analyze-bench.deaddeaddead",
		 base);
	snprintf(link, sizeof(link), "%s/rstat-analyze-bench.linklinklink",
		 base);
	snprintf(foreign, sizeof(foreign),
		 "%s/rstat-analyze-bench.foreignforei", base);
	snprintf(nostamp, sizeof(nostamp),
		 "%s/rstat-analyze-bench.nostampnosta", base);
	mkdir(dead, 0700);
	mkdir(foreign, 0700);
	mkdir(nostamp, 0700);
	CHECK(symlink(victim, link) == 0);
	/* The dead run's stamp, with a link to the victim inside. */
	for (i = 0; i < 2; i++) {
		char forged[OWNER_STAMP_MAX];

		snprintf(forged, sizeof(forged),
			 "rstat-analyze bench pid=%d%s", (int)dead_pid(), p);
		/* start= no longer matches: the PID is dead anyway. */
		snprintf(file, sizeof(file), "%s/.owner",
			 i ? foreign : dead);
		spit(file, forged);
	}
	snprintf(file, sizeof(file), "%s/into-victim", dead);
	CHECK(symlink(victim, file) == 0);
	snprintf(file, sizeof(file), "%s/sub", dead);
	mkdir(file, 0700);
	snprintf(file, sizeof(file), "%s/sub/into-victim", dead);
	CHECK(symlink(victim, file) == 0);
	CHECK(chown(foreign, nobody_uid(), nobody_uid()) == 0);
	snprintf(file, sizeof(file), "%s/.owner", foreign);
	CHECK(chown(file, nobody_uid(), nobody_uid()) == 0);
	CHECK(lchown(link, nobody_uid(), nobody_uid()) == 0);

	CHECK_INT(workdir__cleanup_stale("bench", base, &removed, note, &n),
		  0);
	CHECK_INT(removed, 1);
	CHECK(!is_dir(dead));
	CHECK(victim_intact(victim));
	CHECK(is_link(link) && noted(&n, link));
	CHECK(is_dir(foreign) && noted(&n, foreign));
	CHECK(is_dir(nostamp) && noted(&n, nostamp));
	CHECK(is_dir(workdir__path(live)) && !noted(&n, workdir__path(live)));
	CHECK_INT(n.nr, 3);
	CHECK_INT(workdir__delete(live), 0);
	/* A base that does not exist has nothing stale. */
	CHECK_INT(workdir__cleanup_stale("bench", unit_tmp_path("none"),
					 &removed, note, &n), 0);
	CHECK_INT(removed, 0);
}

static void test_remove_tree_at(void)
{
	const char *victim = make_victim("victim-tree");
	const char *top = unit_tmp_path("tree");
	char path[512];
	int fd;

	mkdir(top, 0755);
	snprintf(path, sizeof(path), "%s/a", top);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/a/link", top);
	CHECK(symlink(victim, path) == 0);
	snprintf(path, sizeof(path), "%s/a/file", top);
	spit(path, "x");
	fd = open(unit_tmpdir(), O_RDONLY | O_DIRECTORY);
	CHECK_INT(remove_tree_at(fd, "tree"), 0);
	/* A link itself is removed, never what it points at. */
	snprintf(path, sizeof(path), "%s/l2", unit_tmpdir());
	CHECK(symlink(victim, path) == 0);
	CHECK_INT(remove_tree_at(fd, "l2"), 0);
	CHECK_INT(remove_tree_at(fd, "never-was"), 0);
	close(fd);
	CHECK(!is_dir(top) && !is_link(path));
	CHECK(victim_intact(victim));
}

static void test_done(void)
{
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_stamp),
	  UNIT(test_new_delete),
	  UNIT(test_bad_base),
	  UNIT(test_cleanup_stale),
	  UNIT(test_remove_tree_at),
	  UNIT_CLEANUP(test_done))
