// SPDX-License-Identifier: GPL-2.0
/*
 * Pack a program with what the dynamic loader needs to start it: the ELF
 * interpreter (at its PT_INTERP path exactly, which is compiled into the
 * program), then every DT_NEEDED library, transitively, found as ld.so
 * finds it: RPATH (when there is no RUNPATH), RUNPATH with $ORIGIN, the
 * directories of /etc/ld.so.conf.d, then the system directories. A "#!"
 * script brings its interpreter (and, for "#!/usr/bin/env NAME", NAME
 * from PATH).
 *
 * Libraries are packed at their real paths and the guest is told those
 * directories (/rs-vm/libdirs), because it has no /etc/ld.so.cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "vm.h"
#include "vm-internal.h"

static const char *const system_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/name into out when it is a regular file; true if found. */
static bool try_dir(const char *dir, size_t dlen, const char *name,
		    char *out, size_t outlen)
{
	if ((size_t)snprintf(out, outlen, "%.*s/%s", (int)dlen, dir,
			     name) >= outlen)
		return false;
	return is_file(out);
}

/* Each directory of a ':' list, $ORIGIN expanded to origin. */
static bool search_list(const char *list, const char *origin,
			const char *name, char *out, size_t outlen)
{
	char dir[PATH_MAX];
	const char *p = list;

	while (p && *p) {
		const char *end = strchrnul(p, ':');
		size_t len = end - p;

		if (len >= 7 && (!strncmp(p, "$ORIGIN", 7) ||
				 !strncmp(p, "${ORIGIN}", 9))) {
			size_t skip = p[1] == '{' ? 9 : 7;

			snprintf(dir, sizeof(dir), "%s%.*s", origin,
				 (int)(len - skip), p + skip);
		} else {
			snprintf(dir, sizeof(dir), "%.*s", (int)len, p);
		}
		if (*dir && try_dir(dir, strlen(dir), name, out, outlen))
			return true;
		p = *end ? end + 1 : NULL;
	}
	return false;
}

static bool search_ld_so_conf(const char *name, char *out, size_t outlen)
{
	char line[PATH_MAX];
	bool found = false;
	glob_t g;
	size_t i;

	if (glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g))
		return false;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");

		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			line[strcspn(line, " \t\r\n#")] = '\0';
			if (line[0] == '/')
				found = try_dir(line, strlen(line), name, out,
						outlen);
		}
		fclose(f);
	}
	globfree(&g);
	return found;
}

static bool find_library(const char *name, const char *rpath,
			 const char *runpath, const char *origin, char *out,
			 size_t outlen)
{
	size_t i;

	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return is_file(out);
	}
	if (!runpath && rpath && search_list(rpath, origin, name, out, outlen))
		return true;
	if (runpath && search_list(runpath, origin, name, out, outlen))
		return true;
	if (search_ld_so_conf(name, out, outlen))
		return true;
	for (i = 0; i < ARRAY_SIZE(system_dirs); i++)
		if (try_dir(system_dirs[i], strlen(system_dirs[i]), name, out,
			    outlen))
			return true;
	return false;
}

struct elf_deps {
	char interp[PATH_MAX];
	char *rpath, *runpath;
	char **needed;
	size_t nneeded, cap;
};

static void elf_deps__free(struct elf_deps *d)
{
	size_t i;

	for (i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->rpath);
	free(d->runpath);
}

static int read_dynamic(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			struct elf_deps *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *s;

		if (!gelf_getdyn(data, i, &dyn))
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
		    dyn.d_tag != DT_RUNPATH)
			continue;
		s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (!s)
			return -EINVAL;
		if (dyn.d_tag == DT_RPATH) {
			free(d->rpath);
			d->rpath = strdup(s);
		} else if (dyn.d_tag == DT_RUNPATH) {
			free(d->runpath);
			d->runpath = strdup(s);
		} else {
			if (grow_array((void **)&d->needed, &d->cap,
				       d->nneeded + 1, sizeof(*d->needed)))
				return -ENOMEM;
			d->needed[d->nneeded] = strdup(s);
			if (!d->needed[d->nneeded])
				return -ENOMEM;
			d->nneeded++;
		}
	}
	return 0;
}

/* The interpreter and dynamic entries of an ELF file; -ENOEXEC if none. */
static int elf_deps__read(int fd, struct elf_deps *d)
{
	Elf_Scn *scn = NULL;
	size_t i, nph;
	int err = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return -ENOEXEC;
	}
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) ||
			    ph.p_type != PT_INTERP)
				continue;
			if (!ph.p_filesz || ph.p_filesz > sizeof(d->interp) ||
			    pread(fd, d->interp, ph.p_filesz,
				  ph.p_offset) != (ssize_t)ph.p_filesz) {
				err = -EINVAL;
				break;
			}
			d->interp[ph.p_filesz - 1] = '\0';
		}
	}
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC)
			err = read_dynamic(elf, scn, &sh, d);
	}
	elf_end(elf);
	return err;
}

static int add_libdir(struct vm_pack *pack, const char *lib)
{
	const char *slash = strrchr(lib, '/');
	size_t len = slash ? (size_t)(slash - lib) : 0;
	size_t i;
	char *dir;

	if (!len)
		return 0;
	for (i = 0; i < pack->nlibdirs; i++)
		if (strlen(pack->libdirs[i]) == len &&
		    !strncmp(pack->libdirs[i], lib, len))
			return 0;
	dir = strndup(lib, len);
	if (!dir || grow_array((void **)&pack->libdirs, &pack->libdirs_cap,
			       pack->nlibdirs + 1, sizeof(*pack->libdirs))) {
		free(dir);
		return -ENOMEM;
	}
	pack->libdirs[pack->nlibdirs++] = dir;
	return 0;
}

static int add_elf(struct vm_pack *pack, const char *src, const char *as,
		   bool library, int depth, char *errbuf, size_t errlen);

/* "#!/bin/sh -e": pack the script and what runs it. */
static int add_script(struct vm_pack *pack, const char *src, const char *as,
		      int fd, int depth, char *errbuf, size_t errlen)
{
	char line[PATH_MAX], interp[PATH_MAX], arg[PATH_MAX], found[PATH_MAX];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	int err;

	if (n < 2)
		return -ENOEXEC;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	interp[0] = arg[0] = '\0';
	if (sscanf(line + 2, " %4095s %4095s", interp, arg) < 1 ||
	    interp[0] != '/') {
		errbuf_set(errbuf, errlen,
			   "%s: its \"#!\" line names no absolute interpreter",
			   src);
		return -ENOEXEC;
	}
	err = cpio__add_file(pack->cpio, as, 0755, src);
	if (err) {
		errbuf_set(errbuf, errlen, "%s: %s", src, strerror(-err));
		return err;
	}
	err = add_elf(pack, interp, interp, false, depth + 1, errbuf, errlen);
	if (err)
		return err;
	/* #!/usr/bin/env NAME: NAME from the PATH, as env would. */
	if (arg[0] && arg[0] != '-' && !strcmp(strrchr(interp, '/'), "/env")) {
		err = vm_find_program(arg, found, sizeof(found));
		if (err) {
			errbuf_set(errbuf, errlen,
				   "%s: %s (run by env) is not on PATH", src,
				   arg);
			return err;
		}
		err = add_elf(pack, found, found, false, depth + 1, errbuf,
			      errlen);
	}
	return err;
}

static int add_elf(struct vm_pack *pack, const char *src, const char *as,
		   bool library, int depth, char *errbuf, size_t errlen)
{
	struct elf_deps d = { 0 };
	char real[PATH_MAX], lib[PATH_MAX], origin[PATH_MAX];
	char magic[2];
	size_t i;
	int fd, err;

	if (cpio__has(pack->cpio, as))
		return 0;
	if (depth > 16) {
		errbuf_set(errbuf, errlen, "%s: interpreters nest too deep",
			   src);
		return -ELOOP;
	}
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		errbuf_set(errbuf, errlen, "%s: %s", src, strerror(errno));
		return err;
	}
	if (pread(fd, magic, 2, 0) == 2 && magic[0] == '#' &&
	    magic[1] == '!' && !library) {
		err = add_script(pack, src, as, fd, depth, errbuf, errlen);
		close(fd);
		return err;
	}
	err = elf_deps__read(fd, &d);
	close(fd);
	if (err) {
		errbuf_set(errbuf, errlen, "%s: %s", src,
			   err == -ENOEXEC ? "not an ELF file or a script" :
			   strerror(-err));
		goto out;
	}
	err = cpio__add_file(pack->cpio, as, 0755, src);
	if (err) {
		errbuf_set(errbuf, errlen, "%s: %s", src, strerror(-err));
		goto out;
	}
	if (d.interp[0]) {
		err = add_elf(pack, d.interp, d.interp, true, depth + 1,
			      errbuf, errlen);
		if (err)
			goto out;
	}
	if (!realpath(src, real))
		snprintf(real, sizeof(real), "%s", src);
	snprintf(origin, sizeof(origin), "%s", real);
	*strrchr(origin, '/') = '\0';
	for (i = 0; i < d.nneeded; i++) {
		char libreal[PATH_MAX];

		if (!find_library(d.needed[i], d.rpath, d.runpath, origin,
				  lib, sizeof(lib))) {
			errbuf_set(errbuf, errlen,
				   "%s: its library %s is nowhere the loader looks",
				   src, d.needed[i]);
			err = -ENOENT;
			goto out;
		}
		/* The real path, so that each library is packed once. */
		if (!realpath(lib, libreal))
			snprintf(libreal, sizeof(libreal), "%s", lib);
		/* Packed under its name in the real directory, which is
		 * where LD_LIBRARY_PATH sends the loader. */
		snprintf(lib, sizeof(lib), "%s", libreal);
		*strrchr(lib, '/') = '\0';
		err = add_libdir(pack, libreal);
		if (err)
			goto out;
		if ((size_t)snprintf(origin, sizeof(origin), "%s/%s", lib,
				     d.needed[i]) >= sizeof(origin)) {
			err = -ENAMETOOLONG;
			goto out;
		}
		err = add_elf(pack, libreal, origin, true, depth + 1, errbuf,
			      errlen);
		snprintf(origin, sizeof(origin), "%s", real);
		*strrchr(origin, '/') = '\0';
		if (err)
			goto out;
	}
out:
	elf_deps__free(&d);
	return err;
}

int vm_pack__program(struct vm_pack *pack, const char *src, const char *as,
		     char *errbuf, size_t errlen)
{
	return add_elf(pack, src, as ? as : src, false, 0, errbuf, errlen);
}

int vm_find_program(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	const char *p;

	if (strchr(name, '/')) {
		if ((size_t)snprintf(out, outlen, "%s", name) >= outlen)
			return -ENAMETOOLONG;
		return access(out, X_OK) ? -errno : 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	for (p = path; p; ) {
		const char *end = strchrnul(p, ':');

		if (end > p && (size_t)snprintf(out, outlen, "%.*s/%s",
						(int)(end - p), p, name) <
		    outlen && is_file(out) && !access(out, X_OK))
			return 0;
		p = *end ? end + 1 : NULL;
	}
	return -ENOENT;
}

void vm_pack__free(struct vm_pack *pack)
{
	size_t i;

	for (i = 0; i < pack->nlibdirs; i++)
		free(pack->libdirs[i]);
	free(pack->libdirs);
	pack->libdirs = NULL;
	pack->nlibdirs = 0;
}
