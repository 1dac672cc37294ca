/* SPDX-License-Identifier: MIT */
/*
 * A cgroup for the run's process tree: made below the supervisor's own
 * cgroup of each controller when that is writable (root, or a delegated
 * cgroup), so that [limits] memory, processes and cpu hold for the whole
 * tree.  Only cgroupfs is touched here; the records are the caller's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "supervisor/cgroup.h"

/* Longest line of /proc/self/mountinfo or /proc/self/cgroup we take. */
#define CG_MAX_LINE 4096
/* Largest cgroupfs file we read (cpu.stat, memory.events, ...). */
#define CG_MAX_FILE 4096

void cgroup_init(struct cgroup_run *cg)
{
	/*
	 * Field by field, not a memset of the whole 25 KiB: the strings are
	 * only read up to their NUL, and clearing them all faulted in six
	 * pages at start-up and again at the end.
	 */
	for (unsigned i = 0; i < CGROUP_MAX_GROUPS; i++) {
		cg->g[i].path[0] = '\0';
		cg->g[i].dir_fd = -1;
		cg->g[i].via = CGROUP_NONE;
	}
	cg->n = 0;
	for (unsigned c = 0; c < CGROUP_NCTRL; c++) {
		cg->of[c] = -1;
		cg->why[c][0] = '\0';
	}
}

/* True when the comma-separated list holds name. */
static bool list_has(const char *list, size_t len, const char *name)
{
	size_t nl = strlen(name);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		size_t wl = (size_t)((q ? q : end) - p);

		if (wl == nl && memcmp(p, name, nl) == 0)
			return true;
		if (!q)
			break;
		p = q + 1;
	}
	return false;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/*
 * The supervisor's own cgroup of controller ctrl (v1; NULL: the v2 unified
 * hierarchy) as a path under the hierarchy's root.  0, -ENOENT when not
 * mounted, -errno.
 */
static int own_cgroup(const char *ctrl, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[CG_MAX_LINE];
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		size_t pl;

		if (!c2)
			continue;
		pl = strcspn(c2 + 1, "\n");
		c2[1 + pl] = '\0';
		if (ctrl ? !list_has(c1 + 1, (size_t)(c2 - c1 - 1), ctrl) :
			   !(c1 == line + 1 && line[0] == '0' && c2 == c1 + 1))
			continue;
		if (snprintf(out, len, "%s", c2 + 1) >= (int)len)
			r = -ENAMETOOLONG;
		else
			r = 0;
		break;
	}
	fclose(f);
	return r;
}

/*
 * Where the hierarchy of ctrl (NULL: v2) is mounted so that cgroup cgpath
 * is visible: the directory of cgpath.  0, -ENOENT, -errno.
 */
static int mounted_dir(const char *ctrl, const char *cgpath, char *out,
		       size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[CG_MAX_LINE];
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (r == -ENOENT && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPT...] - TYPE SRC SUPER */
		char *field[6] = { 0 };
		char *save = NULL, *tok, *sep;
		char *type, *super;
		unsigned n = 0;
		size_t rl;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok && n < 6;
		     tok = strtok_r(NULL, " ", &save))
			field[n++] = tok;
		if (n < 5)
			continue;
		type = strtok_r(sep + 3, " ", &save);
		if (!type || !strtok_r(NULL, " ", &save))
			continue;
		super = strtok_r(NULL, " \n", &save);
		if (!super)
			continue;
		if (ctrl ? strcmp(type, "cgroup") != 0 ||
			   !list_has(super, strlen(super), ctrl) :
			   strcmp(type, "cgroup2") != 0)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		/* The mount shows the hierarchy from ROOT down. */
		rl = strcmp(field[3], "/") == 0 ? 0 : strlen(field[3]);
		if (strncmp(cgpath, field[3], rl) != 0 ||
		    (cgpath[rl] != '/' && cgpath[rl] != '\0'))
			continue;
		if (snprintf(out, len, "%s%s", field[4],
			     strcmp(cgpath + rl, "/") == 0 ? "" : cgpath + rl) >= (int)len)
			r = -ENAMETOOLONG;
		else
			r = 0;
	}
	fclose(f);
	return r;
}

/* Write a short string to a file of the group. 0 or -errno. */
static int put(int dir_fd, const char *name, const char *val)
{
	AUTO_CLOSE int fd = openat(dir_fd, name, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = TEMP_FAILURE_RETRY_INT(write(fd, val, len));
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int put_u64(int dir_fd, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return put(dir_fd, name, buf);
}

/* Read a file of the group, NUL-terminated.  Length or -errno. */
static ssize_t get(int dir_fd, const char *name, char *buf, size_t len)
{
	AUTO_CLOSE int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < len - 1) {
		ssize_t n = TEMP_FAILURE_RETRY_INT(read(fd, buf + off,
							len - 1 - off));

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		off += (size_t)n;
	}
	buf[off] = '\0';
	return (ssize_t)off;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*out = v;
	return 0;
}

/* The number of a file holding one number. */
static int get_u64(int dir_fd, const char *name, uint64_t *out)
{
	char buf[64];
	ssize_t n = get(dir_fd, name, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return parse_u64(buf, out);
}

/* The value of "KEY N" in a flat-keyed file (cpu.stat, memory.events). */
static int get_key(int dir_fd, const char *name, const char *key,
		   uint64_t *out)
{
	char buf[CG_MAX_FILE];
	size_t kl = strlen(key);
	ssize_t n = get(dir_fd, name, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');

		if (strncmp(line, key, kl) == 0 && line[kl] == ' ')
			return parse_u64(line + kl + 1, out);
		if (!nl)
			break;
		line = nl + 1;
	}
	return -ENOENT;
}

static const char *const ctrl_what[CGROUP_NCTRL] = {
	[CGROUP_MEMORY] = "memory",
	[CGROUP_PIDS] = "pids",
	[CGROUP_CPU] = "cpuacct",
};

/* Why controller c has no group (cut to fit). */
static void __attribute__((format(printf, 3, 4)))
set_why(struct cgroup_run *cg, enum cgroup_ctrl c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cg->why[c], sizeof(cg->why[c]), fmt, ap);
	va_end(ap);
}

/* Set up controller c in group i.  0 or -errno, with why set. */
static int configure(struct cgroup_run *cg, enum cgroup_ctrl c, unsigned i,
		     const struct cgroup_want *w)
{
	int fd = cg->g[i].dir_fd;
	bool v1 = cg->g[i].via == CGROUP_V1;
	uint64_t v;
	int r = 0;
	const char *file = "";

	switch (c) {
	case CGROUP_MEMORY:
		file = v1 ? "memory.limit_in_bytes" : "memory.max";
		r = put_u64(fd, file, w->memory_bytes);
		if (r < 0)
			break;
		/* No swap beyond the limit: memory and swap together stay
		 * under it (v1 memsw), or no swap (v2).  Absent when the
		 * kernel does not account swap: nothing to do then. */
		r = v1 ? put_u64(fd, "memory.memsw.limit_in_bytes", w->memory_bytes) :
			 put(fd, "memory.swap.max", "0");
		if (r == -ENOENT)
			r = 0;
		file = v1 ? "memory.memsw.limit_in_bytes" : "memory.swap.max";
		break;
	case CGROUP_PIDS:
		file = "pids.max";
		r = put_u64(fd, file, w->max_tasks);
		break;
	case CGROUP_CPU:
		file = v1 ? "cpuacct.usage" : "cpu.stat";
		r = v1 ? get_u64(fd, file, &v) : get_key(fd, file, "usage_usec", &v);
		break;
	case CGROUP_NCTRL:
		r = -EINVAL;
		break;
	}
	if (r < 0)
		set_why(cg, c, "%s/%s: %s%s",
			 cg->g[i].path, file, strerror(-r),
			 r == -ENOENT && !v1 ? " (controller not enabled in "
			 "the parent's cgroup.subtree_control)" : "");
	return r;
}

/* Remove a group of ours, retrying while it is busy.  0 or -errno. */
static int remove_group(const char *path)
{
	struct timespec ten_ms = { 0, 10 * 1000 * 1000 };

	for (int tries = 0;; tries++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || tries >= 100)
			return -errno;
		nanosleep(&ten_ms, NULL);
	}
}

static void drop_group(struct cgroup_run *cg, unsigned i)
{
	if (cg->g[i].dir_fd >= 0)
		close(cg->g[i].dir_fd);
	cg->g[i].dir_fd = -1;
	if (cg->g[i].path[0])
		remove_group(cg->g[i].path);
	cg->g[i].path[0] = '\0';
	cg->g[i].via = CGROUP_NONE;
}

static bool wanted(const struct cgroup_want *w, enum cgroup_ctrl c)
{
	switch (c) {
	case CGROUP_MEMORY:
		return w->memory_bytes > 0;
	case CGROUP_PIDS:
		return w->max_tasks > 0;
	case CGROUP_CPU:
		return w->cpu;
	case CGROUP_NCTRL:
		break;
	}
	return false;
}

/* The directory of the supervisor's own cgroup of controller c, and
 * whether that is v1 or v2.  0, -ENOENT (not mounted), -errno. */
static int own_dir(enum cgroup_ctrl c, char *dir, size_t len, enum cgroup_via *via)
{
	char own[PATH_MAX];
	int r;

	/* A controller bound to a v1 hierarchy is absent from v2. */
	*via = CGROUP_V1;
	r = own_cgroup(ctrl_what[c], own, sizeof(own));
	if (r == -ENOENT) {
		*via = CGROUP_V2;
		r = own_cgroup(NULL, own, sizeof(own));
	}
	if (r == 0)
		r = mounted_dir(*via == CGROUP_V1 ? ctrl_what[c] : NULL, own, dir, len);
	return r;
}

/* The group for controller c: found among those made, or made.  Its
 * index, or -1 with why set. */
static int group_for(struct cgroup_run *cg, enum cgroup_ctrl c,
		     const char *run_id, int note_fd)
{
	char dir[PATH_MAX], path[PATH_MAX];
	enum cgroup_via via;
	int r;

	r = own_dir(c, dir, sizeof(dir), &via);
	if (r < 0) {
		set_why(cg, c,
			 r == -ENOENT ? "no cgroup hierarchy with %s is mounted" :
			 "cannot find the cgroup of %s", ctrl_what[c]);
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/sysgate-%s", dir, run_id) >=
	    (int)sizeof(path)) {
		set_why(cg, c, "%s: path too long", dir);
		return -1;
	}
	for (unsigned i = 0; i < cg->n; i++)
		if (cg->g[i].path[0] && strcmp(cg->g[i].path, path) == 0)
			return (int)i;	/* co-mounted v1 controllers, or v2 */
	if (cg->n >= CGROUP_MAX_GROUPS)
		return -1;
	/* Noted first: killed right after the mkdir, this supervisor still
	 * leaves it named for the next run.  A note that cannot be written
	 * costs only that: the next run also looks where it runs itself. */
	if (note_fd >= 0)
		dprintf(note_fd, "cgroup %s\n", path);
	/* EEXIST too: never take over a group that is not ours. */
	if (mkdir(path, 0755) < 0) {
		set_why(cg, c, "mkdir %s: %s", path,
			 strerror(errno));
		return -1;
	}
	snprintf(cg->g[cg->n].path, sizeof(cg->g[cg->n].path), "%s", path);
	cg->g[cg->n].via = via;
	cg->g[cg->n].dir_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cg->g[cg->n].dir_fd < 0) {
		set_why(cg, c, "%s: %s", path,
			 strerror(errno));
		drop_group(cg, cg->n);
		return -1;
	}
	return (int)cg->n++;
}

int cgroup_setup(struct cgroup_run *cg, const char *run_id,
		 const struct cgroup_want *w, int note_fd)
{
	int made = 0;

	for (unsigned c = 0; c < CGROUP_NCTRL; c++) {
		int i;

		if (!wanted(w, (enum cgroup_ctrl)c))
			continue;
		i = group_for(cg, (enum cgroup_ctrl)c, run_id, note_fd);
		if (i < 0)
			continue;
		if (configure(cg, (enum cgroup_ctrl)c, (unsigned)i, w) < 0) {
			bool shared = false;

			for (unsigned o = 0; o < CGROUP_NCTRL; o++)
				shared |= cg->of[o] == i;
			if (!shared)
				drop_group(cg, (unsigned)i);
			continue;
		}
		cg->of[c] = i;
		made++;
	}
	return made;
}

int cgroup_attach(const struct cgroup_run *cg, pid_t pid)
{
	for (unsigned i = 0; i < cg->n; i++) {
		char buf[16];
		int r;

		if (!cg->g[i].path[0])
			continue;
		snprintf(buf, sizeof(buf), "%d", (int)pid);
		r = put(cg->g[i].dir_fd, "cgroup.procs", buf);
		if (r < 0)
			return r;
	}
	return 0;
}

enum cgroup_via cgroup_via(const struct cgroup_run *cg, enum cgroup_ctrl c)
{
	return cg->of[c] < 0 ? CGROUP_NONE : cg->g[cg->of[c]].via;
}

const char *cgroup_path(const struct cgroup_run *cg, enum cgroup_ctrl c)
{
	return cg->of[c] < 0 ? NULL : cg->g[cg->of[c]].path;
}

const char *cgroup_via_name(enum cgroup_via via)
{
	switch (via) {
	case CGROUP_V1:
		return "cgroup-v1";
	case CGROUP_V2:
		return "cgroup-v2";
	case CGROUP_NONE:
		break;
	}
	return "rlimit";
}

int cgroup_read(const struct cgroup_run *cg, enum cgroup_counter which,
		uint64_t *out)
{
	enum cgroup_ctrl c = which == CGROUP_CPU_USAGE_US ? CGROUP_CPU :
			     which == CGROUP_PIDS_REFUSED ? CGROUP_PIDS :
							    CGROUP_MEMORY;
	int fd;
	bool v1;
	uint64_t v;
	int r = -EINVAL;

	if (cg->of[c] < 0)
		return -ENOENT;
	fd = cg->g[cg->of[c]].dir_fd;
	v1 = cg->g[cg->of[c]].via == CGROUP_V1;
	switch (which) {
	case CGROUP_CPU_USAGE_US:
		if (v1) {
			r = get_u64(fd, "cpuacct.usage", &v);	/* ns */
			if (r == 0)
				v /= 1000;
		} else {
			r = get_key(fd, "cpu.stat", "usage_usec", &v);
		}
		break;
	case CGROUP_OOM_KILLS:
		r = get_key(fd, v1 ? "memory.oom_control" : "memory.events",
			    "oom_kill", &v);
		break;
	case CGROUP_MEMORY_MAX_HITS:
		r = v1 ? get_u64(fd, "memory.failcnt", &v) :
			 get_key(fd, "memory.events", "max", &v);
		break;
	case CGROUP_PIDS_REFUSED:
		r = get_key(fd, "pids.events", "max", &v);
		break;
	}
	if (r == 0)
		*out = v;
	return r;
}

void cgroup_kill(const struct cgroup_run *cg)
{
	for (unsigned i = 0; i < cg->n; i++)
		if (cg->g[i].path[0] && cg->g[i].via == CGROUP_V2)
			put(cg->g[i].dir_fd, "cgroup.kill", "1");	/* 5.14+ */
}

int cgroup_release(struct cgroup_run *cg)
{
	int ret = 0;

	for (unsigned i = 0; i < cg->n; i++) {
		int r;

		if (cg->g[i].dir_fd >= 0)
			close(cg->g[i].dir_fd);
		if (!cg->g[i].path[0])
			continue;
		r = remove_group(cg->g[i].path);
		if (r < 0) {
			fprintf(stderr, "sysgate: cannot remove the cgroup %s: %s\n",
				cg->g[i].path, strerror(-r));
			if (!ret)
				ret = r;
		}
	}
	cgroup_init(cg);
	return ret;
}

static const char *tty_path(char *buf, size_t len, const char *path)
{
	audit_escape_tty(buf, len, path, strlen(path));
	return buf;
}

/*
 * Removes path, a group of the killed run run_id, when it is one: named
 * "sysgate-RUN_ID" and on a cgroup file system (a note is the user's own
 * file, which a command with the user's rights could have written: it can
 * name no other directory).  Once: a group that still holds a process of
 * that tree (the kernel is killing it) is busy, and left.
 */
static void remove_left(const char *path, const char *run_id, bool verbose,
			bool quiet)
{
	const char *base = strrchr(path, '/');
	char esc[PATH_MAX * 4];
	struct statfs sf;

	if (path[0] != '/' || strncmp(base + 1, "sysgate-", 8) != 0 ||
	    strcmp(base + 1 + 8, run_id) != 0)
		return;
	if (statfs(path, &sf) < 0 ||
	    (sf.f_type != CGROUP_SUPER_MAGIC && sf.f_type != CGROUP2_SUPER_MAGIC))
		return;	/* gone already, or not a group */
	/* The note is the user's file (above): its path is shown escaped. */
	if (rmdir(path) == 0) {
		if (verbose)
			fprintf(stderr, "sysgate: removed the cgroup %s of a run whose sysgate was killed\n",
				tty_path(esc, sizeof(esc), path));
	} else if (errno != ENOENT && !quiet) {
		int err = errno;

		fprintf(stderr, "sysgate: cannot remove the cgroup %s of a run whose sysgate was killed: %s; left in place\n",
			tty_path(esc, sizeof(esc), path), strerror(err));
	}
}

void cgroup_remove_left(const char *run_id, const char *notes, bool verbose,
			bool quiet)
{
	/* Its groups as it noted them, before it made them. */
	for (const char *l = notes; l && *l;) {
		const char *end = strchrnul(l, '\n');
		char path[PATH_MAX];

		if (strncmp(l, "cgroup /", 8) == 0 && end - (l + 7) < (ptrdiff_t)sizeof(path)) {
			snprintf(path, sizeof(path), "%.*s", (int)(end - (l + 7)), l + 7);
			remove_left(path, run_id, verbose, quiet);
		}
		l = *end ? end + 1 : end;
	}
	/* Where this supervisor's own are (a run that was killed before it
	 * could note them, in the same cgroup as this one). */
	for (unsigned c = 0; c < CGROUP_NCTRL; c++) {
		char dir[PATH_MAX], line[PATH_MAX + 16];
		enum cgroup_via via;

		if (own_dir((enum cgroup_ctrl)c, dir, sizeof(dir), &via) < 0 ||
		    snprintf(line, sizeof(line), "cgroup %s/sysgate-%s\n", dir, run_id) >= (int)sizeof(line))
			continue;
		/* Not twice (nor said twice that it is busy). */
		if (notes && strstr(notes, line))
			continue;
		line[strlen(line) - 1] = '\0';
		remove_left(line + 7, run_id, verbose, quiet);
	}
}
