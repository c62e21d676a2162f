// SPDX-License-Identifier: GPL-2.0
/*
 * Output files (outfile.h) against what another local user could plant
 * at their names, and against writes that fail: FILE and FILE.old must
 * come out byte for byte as they were, the error being the real one.
 * Planting another user's files takes chown: root only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "outfile.h"
#include "unit.h"

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

static bool is_link(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
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

static bool has(const char *path, const char *text)
{
	const char *t = slurp(path);

	return t && !strcmp(t, text);
}

/* Entries in dir, . and .. aside: hidden files left behind show here. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* A fresh directory of the case's own. */
static const char *fresh_dir(const char *name)
{
	const char *dir = unit_tmp_path(name);

	mkdir(dir, 0755);
	return dir;
}

static void test_replace(void)
{
	const char *dir = fresh_dir("replace");
	char out[512], mine[512], dest[512], target[512];
	struct outfile *of = NULL;
	struct stat st;

	if (!can_plant())
		return;
	snprintf(out, sizeof(out), "%s/results.json", dir);
	snprintf(mine, sizeof(mine), "%s/mine.json", dir);
	snprintf(dest, sizeof(dest), "%s/dest.json", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);
	spit(target, "do not touch");
	CHECK_INT(outfile__open(&of, out), 0);
	if (of) {
		fputs("new", outfile__stream(of));
		/* Nothing at the name until the file is whole. */
		CHECK(access(out, F_OK));
		CHECK_INT(outfile__commit(of), 0);
	}
	CHECK(has(out, "new"));
	CHECK(!stat(out, &st) && (st.st_mode & 0600) == 0600);
	/* Aborted: nothing left, the old file untouched. */
	CHECK_INT(outfile__open(&of, out), 0);
	if (of) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s", outfile__temp_path(of));
		CHECK(!access(tmp, F_OK));
		fputs("half", outfile__stream(of));
		outfile__abort(of);
		CHECK(access(tmp, F_OK));
	}
	CHECK(has(out, "new"));
	CHECK_INT(entries(dir), 2);
	/* A planted link is refused, its target untouched. */
	unlink(out);
	CHECK(symlink(target, out) == 0 &&
	      lchown(out, nobody_uid(), nobody_uid()) == 0);
	CHECK_INT(outfile__open(&of, out), -ELOOP);
	CHECK_INT(outfile__check(out), -ELOOP);
	CHECK(has(target, "do not touch"));
	CHECK(is_link(out));
	/* A link of our own is followed, as fopen() would. */
	spit(dest, "old");
	CHECK(symlink(dest, mine) == 0);
	CHECK_INT(outfile__open(&of, mine), 0);
	if (of) {
		fputs("via link", outfile__stream(of));
		CHECK_INT(outfile__commit(of), 0);
	}
	CHECK(has(dest, "via link"));
	CHECK(is_link(mine));
	/* ... but not on to one another user planted. */
	unlink(dest);
	CHECK(symlink(target, dest) == 0 &&
	      lchown(dest, nobody_uid(), nobody_uid()) == 0);
	CHECK_INT(outfile__open(&of, mine), -ELOOP);
	CHECK(has(target, "do not touch"));
	/* A missing directory is found early. */
	CHECK_INT(outfile__check(unit_tmp_path("no/such/dir.json")), -ENOENT);
	CHECK(strcmp(outfile__strerror(-ELOOP), strerror(ELOOP)));
}

/*
 * Nothing but a regular file is written: a FIFO (which would block the
 * open, or feed gnuplot someone's script), a socket, a device, a
 * directory, at the name or at FILE.old, is refused without opening it.
 */
static void test_not_regular(void)
{
	const char *dir = fresh_dir("notreg");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char fifo[512], sock[512], file[512], old[512];
	struct outfile *of = NULL;
	int s;

	snprintf(fifo, sizeof(fifo), "%s/x.png.gp", dir);
	snprintf(sock, sizeof(sock), "%s/s.json", dir);
	snprintf(file, sizeof(file), "%s/rstat.data", dir);
	snprintf(old, sizeof(old), "%s/rstat.data.old", dir);
	CHECK_INT(mkfifo(fifo, 0666), 0);
	CHECK_INT(outfile__open(&of, fifo), -OUTFILE_E_FIFO);
	CHECK_INT(outfile__check(fifo), -OUTFILE_E_FIFO);
	CHECK(strstr(outfile__strerror(-OUTFILE_E_FIFO), "a FIFO") != NULL);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s", sock);
	CHECK(s >= 0 && !bind(s, (struct sockaddr *)&sa, sizeof(sa)));
	CHECK_INT(outfile__open(&of, sock), -OUTFILE_E_SOCK);
	if (s >= 0)
		close(s);
	CHECK_INT(outfile__open(&of, "/dev/null"), -OUTFILE_E_DEV);
	CHECK_INT(outfile__check("/dev/null"), -OUTFILE_E_DEV);
	CHECK_INT(outfile__open(&of, dir), -EISDIR);
	CHECK_INT(outfile__check(unit_tmpdir()), -EISDIR);
	/* A FIFO at FILE.old stops a rotation, before anything moves. */
	spit(file, "earlier");
	CHECK_INT(mkfifo(old, 0666), 0);
	CHECK_INT(outfile__check_at(AT_FDCWD, file, OUTFILE_ROTATE),
		  -OUTFILE_E_OLD);
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL, OUTFILE_ROTATE,
				   0600), 0);
	if (of) {
		fputs("new", outfile__stream(of));
		CHECK_INT(outfile__commit(of), -OUTFILE_E_OLD);
	}
	CHECK(has(file, "earlier"));
	CHECK_INT(entries(dir), 4);
	/* Planted after the open, at the name: refused at the commit. */
	unlink(old);
	CHECK_INT(outfile__open(&of, file), 0);
	if (of) {
		unlink(file);
		CHECK_INT(mkfifo(file, 0666), 0);
		fputs("new", outfile__stream(of));
		CHECK_INT(outfile__commit(of), -OUTFILE_E_FIFO);
	}
	CHECK_INT(entries(dir), 3);
}

/* perf's rule: FILE -> FILE.old on success, and only then. */
static void test_rotate_commit(void)
{
	const char *dir = fresh_dir("rot");
	char file[512], old[512];
	struct outfile *of = NULL;

	snprintf(file, sizeof(file), "%s/results.json", dir);
	snprintf(old, sizeof(old), "%s/results.json.old", dir);
	spit(file, "A");
	spit(old, "B");
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL, OUTFILE_ROTATE,
				   0666), 0);
	if (of) {
		fputs("C", outfile__stream(of));
		/* Nothing moves before the commit. */
		CHECK(has(file, "A") && has(old, "B"));
		CHECK_INT(outfile__commit(of), 0);
	}
	CHECK(has(file, "C"));
	CHECK(has(old, "A"));
	CHECK_INT(entries(dir), 2);
	/* An empty FILE of ours is replaced; the .old stays. */
	spit(file, "");
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL, OUTFILE_ROTATE,
				   0666), 0);
	if (of) {
		fputs("D", outfile__stream(of));
		CHECK_INT(outfile__commit(of), 0);
	}
	CHECK(has(file, "D"));
	CHECK(has(old, "A"));
	CHECK_INT(entries(dir), 2);
}

/*
 * A recording: named (and rotated) once live, then cut short. FILE and
 * FILE.old come back as they were, the older .old included.
 */
static void test_rotate_undo(void)
{
	const char *dir = fresh_dir("undo");
	char file[512], old[512];
	struct outfile *of = NULL;

	snprintf(file, sizeof(file), "%s/rstat.data", dir);
	snprintf(old, sizeof(old), "%s/rstat.data.old", dir);
	spit(file, "A");
	spit(old, "B");
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL,
				   OUTFILE_ROTATE | OUTFILE_UNNAMED, 0600), 0);
	if (!of)
		return;
	CHECK(write(outfile__fd(of), "new", 3) == 3);
	CHECK_INT(outfile__publish(of), 0);
	CHECK(outfile__rotated(of));
	CHECK(has(file, "new"));
	CHECK(has(old, "A"));
	outfile__abort(of);
	CHECK(has(file, "A"));
	CHECK(has(old, "B"));
	CHECK_INT(entries(dir), 2);
	/* Published and committed: B is gone for good, nothing hidden left. */
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL,
				   OUTFILE_ROTATE | OUTFILE_UNNAMED, 0600), 0);
	if (!of)
		return;
	CHECK(write(outfile__fd(of), "new", 3) == 3);
	CHECK_INT(outfile__publish(of), 0);
	CHECK_INT(outfile__commit(of), 0);
	CHECK(has(file, "new"));
	CHECK(has(old, "A"));
	CHECK_INT(entries(dir), 2);
}

/*
 * A write that fails says why: RLIMIT_FSIZE makes write() fail with
 * EFBIG as a full disk makes it fail with ENOSPC; the error must be that
 * one, not EIO, and the earlier files must be as they were.
 */
static void test_write_error(void)
{
	const char *dir = fresh_dir("full");
	struct rlimit rl, small = { 4096, 4096 };
	char file[512], old[512], big[65536];
	struct outfile *of = NULL;
	int err = 0;

	snprintf(file, sizeof(file), "%s/results.json", dir);
	snprintf(old, sizeof(old), "%s/results.json.old", dir);
	spit(file, "A");
	spit(old, "B");
	memset(big, 'x', sizeof(big));
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL, OUTFILE_ROTATE,
				   0666), 0);
	if (!of)
		return;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &rl);
	setrlimit(RLIMIT_FSIZE, &small);
	fwrite(big, 1, sizeof(big), outfile__stream(of));
	err = outfile__commit(of);
	setrlimit(RLIMIT_FSIZE, &rl);
	signal(SIGXFSZ, SIG_DFL);
	CHECK_INT(err, -EFBIG);
	CHECK(has(file, "A"));
	CHECK(has(old, "B"));
	CHECK_INT(entries(dir), 2);
	/* The same through outfile__errno() when the writer stops first. */
	CHECK_INT(outfile__open_at(&of, AT_FDCWD, file, NULL, OUTFILE_ROTATE,
				   0666), 0);
	if (!of)
		return;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &small);
	fwrite(big, 1, sizeof(big), outfile__stream(of));
	fflush(outfile__stream(of));
	err = outfile__errno(of);
	setrlimit(RLIMIT_FSIZE, &rl);
	signal(SIGXFSZ, SIG_DFL);
	CHECK_INT(err, -EFBIG);
	outfile__abort(of);
	CHECK(has(file, "A"));
	CHECK(has(old, "B"));
	CHECK_INT(entries(dir), 2);
}

/* -o DIR: another user's, or one others can write, only when asked. */
static void test_dirs(void)
{
	const char *theirs = unit_tmp_path("theirs");
	const char *open = unit_tmp_path("open");
	const char *sticky = unit_tmp_path("sticky");
	const char *link = unit_tmp_path("link");
	const char *file = unit_tmp_path("a-file");
	const char *made = unit_tmp_path("made");
	int fd;

	if (!can_plant())
		return;
	CHECK_INT(mkdir(theirs, 0755), 0);
	CHECK_INT(chown(theirs, nobody_uid(), nobody_uid()), 0);
	CHECK_INT(outfile__dir_open(theirs, 0), -OUTFILE_E_FOREIGN_DIR);
	CHECK_INT(outfile__dir(theirs), -OUTFILE_E_FOREIGN_DIR);
	fd = outfile__dir_open(theirs, OUTFILE_DIR_SHARED);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_INT(mkdir(open, 0777), 0);
	CHECK_INT(chmod(open, 0777), 0);
	CHECK_INT(outfile__dir_open(open, 0), -OUTFILE_E_SHARED_DIR);
	CHECK(strstr(outfile__strerror(-OUTFILE_E_SHARED_DIR),
		     "--allow-shared-dir") != NULL);
	CHECK_INT(mkdir(sticky, 0777), 0);
	CHECK_INT(chmod(sticky, 01777), 0);
	CHECK_INT(outfile__dir(sticky), 0);
	CHECK(symlink(theirs, link) == 0 &&
	      lchown(link, nobody_uid(), nobody_uid()) == 0);
	CHECK_INT(outfile__dir_open(link, OUTFILE_DIR_SHARED), -ELOOP);
	spit(file, "x");
	CHECK_INT(outfile__dir(file), -ENOTDIR);
	/* Made when missing, ours, and files open through it. */
	fd = outfile__dir_open(made, 0);
	CHECK(fd >= 0);
	if (fd >= 0) {
		struct outfile *of = NULL;
		char path[512];

		CHECK_INT(outfile__open_at(&of, fd, "results.json", "shown",
					   OUTFILE_ROTATE, 0666), 0);
		if (of) {
			fputs("in dir", outfile__stream(of));
			CHECK_INT(outfile__commit(of), 0);
		}
		snprintf(path, sizeof(path), "%s/results.json", made);
		CHECK(has(path, "in dir"));
		close(fd);
	}
}

static void test_done(void)
{
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_replace),
	  UNIT(test_not_regular),
	  UNIT(test_rotate_commit),
	  UNIT(test_rotate_undo),
	  UNIT(test_write_error),
	  UNIT(test_dirs),
	  UNIT_CLEANUP(test_done))
