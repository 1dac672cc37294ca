/* SPDX-License-Identifier: MIT */
/*
 * Looking at a path, or changing its metadata: stat, statx, access,
 * readlink, chdir, statfs, the xattr calls, the utime calls, inotify and
 * fanotify marks.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/regs.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

#define META_MAX_XATTR 65536u

/*
 * A path naming what was resolved, for the calls that have no *at or fd
 * form for an O_PATH fd: through our fd of the object (follows to it), or
 * through our fd of its directory and the last component (does not follow
 * a symlink there).  Both walks start at an fd we hold: nothing the caller
 * does can change what they reach.
 */
static int meta_path(const struct resolved *r, bool follow, char *buf,
		     size_t len)
{
	int n;

	if (!follow && r->parent_fd >= 0 && strcmp(r->name, ".") &&
	    strcmp(r->name, ".."))
		n = snprintf(buf, len, "/proc/self/fd/%d/%s", r->parent_fd, r->name);
	else
		n = snprintf(buf, len, "/proc/self/fd/%d", r->fd);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/*
 * Per call: its operation and where its arguments other than the path are
 * (the syscall table's row has the path and its dirfd).  arg: stat,
 * statx, statfs and readlink: the buffer written (readlink: its size
 * follows); access: the mode; the utime calls: the times.  flags: the
 * AT_* flags word, whose bits outside valid are refused.  -1: none.
 */
struct meta_call {
	int nr;
	enum op op;
	signed char arg;
	signed char flags;
	uint64_t valid;
	bool follow;	/* the last symlink is followed unless the flags say
			 * AT_SYMLINK_NOFOLLOW */
};

#define STAT_FLAGS (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT)
#define ROW(name, o, arg, fl, valid, fol) \
	{ SYS_##name, OP_##o, arg, fl, valid, fol }

static const struct meta_call meta_calls[] = {
	/*   call              op           arg flags valid  follow */
	ROW(stat,              STAT,         1, -1, 0, true),
	ROW(lstat,             STAT,         1, -1, 0, false),
	ROW(newfstatat,        STAT,         2,  3, STAT_FLAGS, true),
	ROW(statx,             STATX,        4,  2, STAT_FLAGS | AT_STATX_SYNC_TYPE,
	    true),
	ROW(access,            ACCESS,       1, -1, 0, true),
	ROW(faccessat,         ACCESS,       2, -1, 0, true),
	ROW(faccessat2,        ACCESS,       2,  3,
	    AT_SYMLINK_NOFOLLOW | AT_EACCESS | AT_EMPTY_PATH, true),
	ROW(readlink,          READLINK,     1, -1, 0, false),
	ROW(readlinkat,        READLINK,     2, -1, 0, false),
	ROW(chdir,             CHDIR,       -1, -1, 0, true),
	ROW(statfs,            STATFS,       1, -1, 0, true),
	ROW(getxattr,          GETXATTR,    -1, -1, 0, true),
	ROW(lgetxattr,         GETXATTR,    -1, -1, 0, false),
	ROW(listxattr,         LISTXATTR,   -1, -1, 0, true),
	ROW(llistxattr,        LISTXATTR,   -1, -1, 0, false),
	ROW(setxattr,          SETXATTR,    -1, -1, 0, true),
	ROW(lsetxattr,         SETXATTR,    -1, -1, 0, false),
	ROW(fsetxattr,         SETXATTR,    -1, -1, 0, true),
	ROW(removexattr,       REMOVEXATTR, -1, -1, 0, true),
	ROW(lremovexattr,      REMOVEXATTR, -1, -1, 0, false),
	ROW(fremovexattr,      REMOVEXATTR, -1, -1, 0, true),
	ROW(utime,             UTIMES,       1, -1, 0, true),
	ROW(utimes,            UTIMES,       1, -1, 0, true),
	ROW(futimesat,         UTIMES,       2, -1, 0, true),
	ROW(utimensat,         UTIMES,       2,  3,
	    AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, true),
	ROW(inotify_add_watch, INOTIFY,     -1, -1, 0, true),
	ROW(fanotify_mark,     FANOTIFY,    -1, -1, 0, true),
};

#undef ROW
#undef STAT_FLAGS

static const struct meta_call *meta_call_of(int nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(meta_calls); i++)
		if (meta_calls[i].nr == nr)
			return &meta_calls[i];
	return NULL;
}

/* One call being carried out on what was resolved. */
struct meta {
	struct call *c;
	const struct meta_call *row;
	const struct resolved *r;
	bool follow;
};

static uint64_t meta_arg(const struct meta *m, int idx)
{
	return m->c->req->data.args[idx];
}

/*
 * The stages of one operation: check (what the kernel refuses in the
 * arguments, and how the path is resolved: *res) and emulate (the call
 * carried out on what was resolved; *ret is the syscall's value).
 * changes: a write of the path, recorded before it is made.  object_only:
 * acts on the object alone (r->fd), never on its directory and name, so
 * the whole path may be taken in one jump (RES_OPEN).
 */
struct meta_op {
	bool changes;
	bool object_only;
	int (*check)(const struct meta *m, uint64_t fl, unsigned *res);
	int (*emulate)(const struct meta *m, int64_t *ret);
};

static int access_check(const struct meta *m, uint64_t fl, unsigned *res)
{
	(void)fl;
	(void)res;
	if (meta_arg(m, m->row->arg) & ~(uint64_t)(R_OK | W_OK | X_OK))
		return -EINVAL;
	return 0;
}

static int readlink_check(const struct meta *m, uint64_t fl, unsigned *res)
{
	(void)fl;
	*res = RES_EMPTY_PATH;
	if ((int)meta_arg(m, m->row->arg + 1) <= 0)
		return -EINVAL;
	return 0;
}

static int utimes_check(const struct meta *m, uint64_t fl, unsigned *res)
{
	(void)res;
	/* futimens: the kernel takes no flags on an fd. */
	if (m->c->paths[0].fd_form && fl)
		return -EINVAL;
	return 0;
}

/* inotify_add_watch(fd, path, mask) */
static int inotify_check(const struct meta *m, uint64_t fl, unsigned *res)
{
	(void)fl;
	if (meta_arg(m, 2) & IN_DONT_FOLLOW)
		*res = 0;
	return 0;
}

/* fanotify_mark(fd, flags, mask, dirfd, path) */
static int fanotify_check(const struct meta *m, uint64_t fl, unsigned *res)
{
	(void)fl;
	if (meta_arg(m, 1) & FAN_MARK_DONT_FOLLOW)
		*res = 0;
	return 0;
}

static int stat_emulate(const struct meta *m, int64_t *ret)
{
	(void)ret;
	/* The resolver's stat of this very fd, a moment ago. */
	return tracee_write(m->c->tid, meta_arg(m, m->row->arg), &m->r->st,
			    sizeof(m->r->st));
}

/* statx(dirfd, path, flags, mask, buf) */
static int statx_emulate(const struct meta *m, int64_t *ret)
{
	struct statx stx;

	(void)ret;
	if (statx(m->r->fd, "", AT_EMPTY_PATH |
		  ((int)meta_arg(m, 2) & AT_STATX_SYNC_TYPE),
		  (unsigned)meta_arg(m, 3), &stx) < 0)
		return -errno;
	return tracee_write(m->c->tid, meta_arg(m, 4), &stx, sizeof(stx));
}

static int access_emulate(const struct meta *m, int64_t *ret)
{
	int mode = (int)meta_arg(m, m->row->arg);
	int flags = m->row->flags >= 0 ?
		    (int)meta_arg(m, m->row->flags) & AT_EACCESS : 0;

	(void)ret;
	return faccessat(m->r->fd, "", mode, AT_EMPTY_PATH | flags) < 0 ?
	       -errno : 0;
}

static int readlink_emulate(const struct meta *m, int64_t *ret)
{
	const struct resolved *r = m->r;
	char target[PATH_MAX];
	size_t size = (size_t)(int)meta_arg(m, m->row->arg + 1);
	ssize_t n;
	int rc;

	if (r->self_link[0]) {
		/* /proc/self names the caller. */
		n = (ssize_t)strlen(r->self_link);
		memcpy(target, r->self_link, (size_t)n);
	} else {
		if (!S_ISLNK(r->st.st_mode))
			return -EINVAL;
		n = readlinkat(r->fd, "", target, sizeof(target));
		if (n < 0)
			return -errno;
	}
	if ((size_t)n > size)
		n = (ssize_t)size;
	rc = tracee_write(m->c->tid, meta_arg(m, m->row->arg), target,
			  (size_t)n);
	*ret = n;
	return rc;
}

static int chdir_emulate(const struct meta *m, int64_t *ret)
{
	(void)m;
	(void)ret;
	return 0;	/* continued: see meta_chdir() */
}

static int statfs_emulate(const struct meta *m, int64_t *ret)
{
	struct statfs sf;

	(void)ret;
	if (fstatfs(m->r->fd, &sf) < 0)
		return -errno;
	return tracee_write(m->c->tid, meta_arg(m, m->row->arg), &sf,
			    sizeof(sf));
}

/*
 * The xattr calls: (path or fd, name, value, size, flags); listxattr:
 * (path, list, size).
 */
static int xattr_emulate(const struct meta *m, int64_t *ret)
{
	const __u64 *a = m->c->req->data.args;
	enum op op = m->row->op;
	bool follow = m->follow;
	struct call *c = m->c;
	char name[XATTR_NAME_MAX + 1];
	AUTO_FREE char *val = NULL;
	char p[128];
	size_t size;
	ssize_t n;
	int rc;

	rc = meta_path(m->r, follow, p, sizeof(p));
	if (rc < 0)
		return rc;
	if (op != OP_LISTXATTR) {
		n = tracee_read_str(c->tid, a[1], name, sizeof(name));
		if (n < 0)
			return n == -ENAMETOOLONG ? -ERANGE : (int)n;
	}
	size = op == OP_LISTXATTR ? a[2] : op == OP_REMOVEXATTR ? 0 : a[3];
	if (size > META_MAX_XATTR)
		size = META_MAX_XATTR;
	if (size) {
		val = malloc(size);
		if (!val)
			return -ENOMEM;
	}
	if (op == OP_GETXATTR) {
		n = follow ? getxattr(p, name, val, size) :
			     lgetxattr(p, name, val, size);
		if (n > 0 && size)
			rc = tracee_write(c->tid, a[2], val, (size_t)n);
	} else if (op == OP_LISTXATTR) {
		n = follow ? listxattr(p, val, size) : llistxattr(p, val, size);
		if (n > 0 && size)
			rc = tracee_write(c->tid, a[1], val, (size_t)n);
	} else if (op == OP_SETXATTR) {
		if (a[3] > META_MAX_XATTR)
			return -E2BIG;
		rc = tracee_read(c->tid, a[2], val, size);
		if (rc < 0)
			return rc;
		n = follow ? setxattr(p, name, val, size, (int)a[4]) :
			     lsetxattr(p, name, val, size, (int)a[4]);
	} else {
		n = follow ? removexattr(p, name) : lremovexattr(p, name);
	}
	if (n < 0)
		return -errno;
	*ret = n;
	return rc;
}

/* The times at addr: a utimbuf (utime), two timespecs (utimensat) or two
 * timevals (utimes, futimesat); NULL: now. */
static int copy_times(const struct meta *m, struct timespec ts[2], bool *now)
{
	struct call *c = m->c;
	int nr = m->row->nr;
	uint64_t addr = meta_arg(m, m->row->arg);
	int rc;

	*now = addr == 0;
	if (*now)
		return 0;
	if (nr == SYS_utime) {
		struct utimbuf u;

		rc = tracee_read(c->tid, addr, &u, sizeof(u));
		ts[0] = (struct timespec){ u.actime, 0 };
		ts[1] = (struct timespec){ u.modtime, 0 };
	} else if (nr == SYS_utimensat) {
		rc = tracee_read(c->tid, addr, ts, 2 * sizeof(*ts));
	} else {
		struct timeval tv[2];

		rc = tracee_read(c->tid, addr, tv, sizeof(tv));
		for (int i = 0; i < 2 && rc == 0; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i] = (struct timespec){ tv[i].tv_sec, tv[i].tv_usec * 1000 };
		}
	}
	return rc;
}

static int utimes_emulate(const struct meta *m, int64_t *ret)
{
	struct timespec ts[2];
	char p[128];
	bool now;
	int rc;

	(void)ret;
	rc = copy_times(m, ts, &now);
	if (rc < 0)
		return rc;
	rc = meta_path(m->r, m->follow, p, sizeof(p));
	if (rc < 0)
		return rc;
	if (utimensat(AT_FDCWD, p, now ? NULL : ts,
		      m->follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* inotify_add_watch(fd, path, mask) */
static int inotify_emulate(const struct meta *m, int64_t *ret)
{
	AUTO_CLOSE int ifd = caller_fd(m->c, meta_arg(m, 0));
	char p[128];
	int wd, rc;

	if (ifd < 0)
		return -EBADF;
	rc = meta_path(m->r, m->follow, p, sizeof(p));
	if (rc < 0)
		return rc;
	wd = inotify_add_watch(ifd, p, (uint32_t)meta_arg(m, 2));
	if (wd < 0)
		return -errno;
	*ret = wd;
	return 0;
}

/* fanotify_mark(fd, flags, mask, dirfd, path) */
static int fanotify_emulate(const struct meta *m, int64_t *ret)
{
	AUTO_CLOSE int ffd = caller_fd(m->c, meta_arg(m, 0));
	char p[128];
	int rc;

	(void)ret;
	if (ffd < 0)
		return -EBADF;
	rc = meta_path(m->r, m->follow, p, sizeof(p));
	if (rc < 0)
		return rc;
	if (fanotify_mark(ffd, (unsigned)meta_arg(m, 1) &
			  ~(unsigned)FAN_MARK_DONT_FOLLOW,
			  meta_arg(m, 2), AT_FDCWD, p) < 0)
		return -errno;
	return 0;
}

static const struct meta_op meta_ops[] = {
	[OP_STAT] = { false, true, NULL, stat_emulate },
	[OP_STATX] = { false, true, NULL, statx_emulate },
	[OP_ACCESS] = { false, true, access_check, access_emulate },
	[OP_READLINK] = { false, true, readlink_check, readlink_emulate },
	[OP_CHDIR] = { false, true, NULL, chdir_emulate },
	[OP_STATFS] = { false, true, NULL, statfs_emulate },
	[OP_GETXATTR] = { false, false, NULL, xattr_emulate },
	[OP_LISTXATTR] = { false, false, NULL, xattr_emulate },
	[OP_SETXATTR] = { true, false, NULL, xattr_emulate },
	[OP_REMOVEXATTR] = { true, false, NULL, xattr_emulate },
	[OP_UTIMES] = { true, false, utimes_check, utimes_emulate },
	[OP_INOTIFY] = { false, false, inotify_check, inotify_emulate },
	[OP_FANOTIFY] = { false, false, fanotify_check, fanotify_emulate },
};

/* Resolve flags and the validity of the flags argument. */
static int meta_plan(const struct meta *m, unsigned *res)
{
	const struct meta_call *row = m->row;
	uint64_t fl = row->flags >= 0 ? meta_arg(m, row->flags) : 0;
	int rc;

	*res = row->follow ? RES_FOLLOW : 0;
	if (fl & ~row->valid)
		return -EINVAL;
	if (meta_ops[row->op].check &&
	    (rc = meta_ops[row->op].check(m, fl, res)) < 0)
		return rc;
	if (fl & AT_SYMLINK_NOFOLLOW)
		*res = 0;
	if (fl & AT_EMPTY_PATH)
		*res |= RES_EMPTY_PATH;
	return 0;
}

/* utimensat or futimesat with a NULL path and an fd (futimens, futimes):
 * a change of the times of the open file the fd names. */
static bool is_futimens(const struct call *c)
{
	int nr = c->req->data.nr;

	return (nr == SYS_utimensat || nr == SYS_futimesat) &&
	       c->req->data.args[c->info->path_arg[0]] == 0 &&
	       (int32_t)c->req->data.args[c->info->dirfd_arg[0]] != AT_FDCWD;
}

/*
 * chdir, allowed, into the directory r: the kernel enters it (a redirected
 * path is written into the caller's registers first).  r is released.
 */
static int meta_chdir(struct sup *s, struct call *c, struct resolved *r)
{
	struct call_path *cp = &c->paths[0];

	if (cp->redirected) {
		/* The kernel enters the directory: give it the new path. */
		struct proc *p = procs_find(c->tid);

		if (p && regs_rewrite(s, c, p, (const uint64_t *)c->req->data.args,
				      c->info->path_arg[0], cp->redirect,
				      cp->from, cp->redirect_base) == 0) {
			resolved_release(r);
			return 0;
		}
		c->err = EACCES;
		c->note = "chdir into a redirected path: the path could not be rewritten";
		resolved_release(r);
		return notify_finish(s, c, false);
	}
	/*
	 * Security: chdir cannot be done for the caller, so it is
	 * continued.  If a racing thread makes the kernel enter
	 * another directory, the caller gains nothing: every later
	 * path is resolved again from its real cwd, and what the
	 * directory's existence tells is what stat(2) tells.
	 */
	if (faccessat(r->fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0) {
		c->err = errno;
		resolved_release(r);
		return notify_finish(s, c, false);
	}
	resolved_release(r);
	/* The kernel's checks were just made: this is its answer
	 * unless the directory goes away in between. */
	c->result = 0;
	c->have_result = true;
	c->note = "chdir: done by the kernel";
	return notify_finish(s, c, true);
}

/*
 * Security: a NULL path of fanotify_mark, or of statx or newfstatat
 * with AT_EMPTY_PATH (6.11+), looks at what the dirfd names: decided
 * on registers alone (no thread can change them) and continued, as
 * fstat is.  utimensat and futimesat with a NULL path and a dirfd
 * (futimens, futimes) change the times of the file it names: a call
 * on an open file, like fchmod (copy_path()).  With AT_FDCWD, and
 * for utime and utimes, the kernel answers EFAULT.
 */
static bool null_path_continued(const struct meta *m, bool fd_times)
{
	const struct meta_call *row = m->row;

	return row->op == OP_FANOTIFY || row->op == OP_STATX ||
	       (row->op == OP_STAT && row->flags >= 0 &&
		(meta_arg(m, row->flags) & AT_EMPTY_PATH)) ||
	       (row->op == OP_UTIMES && !fd_times);
}

int handle_meta(struct sup *s, struct call *c, struct proc *p)
{
	const __u64 *a = c->req->data.args;
	const struct meta_call *row = meta_call_of(c->req->data.nr);
	int parg = c->info->path_arg[0];
	/* fsetxattr, fremovexattr: no path argument at all (-1). */
	bool null_path = parg >= 0 && a[parg] == 0;
	bool fd_times = is_futimens(c);
	struct resolved r;
	struct meta m = { .c = c, .row = row, .r = &r };
	const struct meta_op *ops;
	unsigned acc, resf = 0;
	enum op op;
	int rc;

	(void)p;
	if (!row)
		return notify_refuse_unsupported(s, c);
	op = row->op;
	ops = &meta_ops[op];
	acc = ops->changes ? RULES_ACC_WRITE : RULES_ACC_STAT;
	resolved_init(&r);
	if (null_path && null_path_continued(&m, fd_times))
		return notify_send_resp(s, c->req->id, 0, 0, true);

	/* Any other NULL path fails with EFAULT, as in the kernel. */
	rc = copy_path(c, fd_times ? -1 : parg, "path");
	if (rc == 0)
		rc = meta_plan(&m, &resf);
	if (ops->object_only)
		resf |= RES_OPEN;
	if (rc == 0)
		rc = call_resolve_open(s, c, 0, resf, acc, 0, &r);
	if (!notify_id_valid(s, c->req->id))
		goto gone;
	if (rc == -EREMCHG) {
		resolved_release(&r);
		return rewrite_restart(s, c);
	}
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	decide_path(s, c, &c->paths[0], &r, acc);
	decide_call(c);
	if (c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_REWRITE) {
		resolved_release(&r);
		return rewrite_restart(s, c);
	}
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;
	if (c->v.action != RULES_ALLOW)
		goto out;
	if (r.fd < 0) {
		c->err = ENOENT;
		goto out;
	}
	/* inotify_add_watch(fd, path, mask) */
	if ((op == OP_CHDIR || (op == OP_INOTIFY && (a[2] & IN_ONLYDIR))) &&
	    !S_ISDIR(r.st.st_mode)) {
		c->err = ENOTDIR;
		goto out;
	}
	if (op == OP_CHDIR)
		return meta_chdir(s, c, &r);
	c->emulated = true;
	if (ops->changes && notify_record_before_change(s, c) < 0)
		goto out;
	{
		int64_t ret = 0;

		m.follow = resf & RES_FOLLOW;
		rc = ops->emulate(&m, &ret);
		if (rc < 0)
			c->err = -rc;
		else {
			c->result = ret;
			c->have_result = true;
		}
	}
out:
	resolved_release(&r);
	return notify_finish(s, c, false);
gone:
	resolved_release(&r);
	return 0;
}
