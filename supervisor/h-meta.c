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
#include "supervisor/internal.h"
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

static bool meta_changes(enum op op)
{
	return op == OP_SETXATTR || op == OP_REMOVEXATTR || op == OP_UTIMES;
}

/* Resolve flags and the validity of the flags argument. */
static int meta_plan(struct call *c, enum op op, unsigned *res)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	uint64_t fl = 0;

	*res = RES_FOLLOW;
	switch (op) {
	case OP_STAT:
		if (nr == SYS_lstat)
			*res = 0;
		if (nr != SYS_newfstatat)
			return 0;
		fl = a[3];
		if (fl & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
			return -EINVAL;
		break;
	case OP_STATX:
		fl = a[2];
		if (fl & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH |
				      AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE))
			return -EINVAL;
		break;
	case OP_ACCESS:
		if (a[nr == SYS_access ? 1 : 2] & ~(uint64_t)(R_OK | W_OK | X_OK))
			return -EINVAL;
		if (nr != SYS_faccessat2)
			return 0;
		fl = a[3];
		if (fl & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EACCESS | AT_EMPTY_PATH))
			return -EINVAL;
		break;
	case OP_READLINK:
		*res = RES_EMPTY_PATH;
		if ((int)a[nr == SYS_readlink ? 2 : 3] <= 0)
			return -EINVAL;
		return 0;
	case OP_GETXATTR: case OP_LISTXATTR: case OP_SETXATTR:
	case OP_REMOVEXATTR:
		if (nr == SYS_lgetxattr || nr == SYS_llistxattr ||
		    nr == SYS_lsetxattr || nr == SYS_lremovexattr)
			*res = 0;
		return 0;
	case OP_UTIMES:
		if (nr != SYS_utimensat)
			return 0;
		fl = a[3];
		if (fl & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			return -EINVAL;
		/* futimens: the kernel takes no flags on an fd. */
		if (c->paths[0].fd_form && fl)
			return -EINVAL;
		break;
	case OP_INOTIFY:
		if (a[2] & IN_DONT_FOLLOW)
			*res = 0;
		return 0;
	case OP_FANOTIFY:
		if (a[1] & FAN_MARK_DONT_FOLLOW)
			*res = 0;
		return 0;
	case OP_CHDIR: case OP_STATFS:
		return 0;
	case OP_OPEN: case OP_MKDIR: case OP_MKNOD: case OP_UNLINK:
	case OP_RENAME: case OP_LINK: case OP_SYMLINK: case OP_CHMOD:
	case OP_CHOWN: case OP_TRUNCATE: case OP_UNSUPPORTED:
		return -ENOSYS;
	}
	if (fl & AT_SYMLINK_NOFOLLOW)
		*res = 0;
	if (fl & AT_EMPTY_PATH)
		*res |= RES_EMPTY_PATH;
	return 0;
}

static int copy_times(struct call *c, int nr, struct timespec ts[2], bool *now)
{
	const __u64 *a = c->req->data.args;
	uint64_t addr = nr == SYS_utime || nr == SYS_utimes ? a[1] : a[2];
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

/* Carry out the call on what was resolved; *ret is the syscall's value. */
static int meta_emulate(struct sup *s, struct call *c, enum op op,
			const struct resolved *r, bool follow, int64_t *ret)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	char p[128];
	int rc;

	(void)s;
	*ret = 0;
	switch (op) {
	case OP_STAT:
		/* The resolver's stat of this very fd, a moment ago. */
		return tracee_write(c->tid, nr == SYS_newfstatat ? a[2] : a[1],
				    &r->st, sizeof(r->st));
	case OP_STATX: {
		struct statx stx;

		if (statx(r->fd, "", AT_EMPTY_PATH | ((int)a[2] & AT_STATX_SYNC_TYPE),
			  (unsigned)a[3], &stx) < 0)
			return -errno;
		return tracee_write(c->tid, a[4], &stx, sizeof(stx));
	}
	case OP_ACCESS: {
		int mode = (int)a[nr == SYS_access ? 1 : 2];
		int flags = nr == SYS_faccessat2 ? (int)a[3] & AT_EACCESS : 0;

		return faccessat(r->fd, "", mode, AT_EMPTY_PATH | flags) < 0 ? -errno : 0;
	}
	case OP_READLINK: {
		char target[PATH_MAX];
		size_t size = (size_t)(int)a[nr == SYS_readlink ? 2 : 3];
		ssize_t n;

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
		rc = tracee_write(c->tid, a[nr == SYS_readlink ? 1 : 2], target, (size_t)n);
		*ret = n;
		return rc;
	}
	case OP_CHDIR:
		return 0;	/* continued: see handle_meta */
	case OP_STATFS: {
		struct statfs sf;

		if (fstatfs(r->fd, &sf) < 0)
			return -errno;
		return tracee_write(c->tid, a[1], &sf, sizeof(sf));
	}
	case OP_GETXATTR: case OP_LISTXATTR: case OP_SETXATTR:
	case OP_REMOVEXATTR: {
		char name[XATTR_NAME_MAX + 1];
		AUTO_FREE char *val = NULL;
		size_t size;
		ssize_t n;

		rc = meta_path(r, follow, p, sizeof(p));
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
	case OP_UTIMES: {
		struct timespec ts[2];
		bool now;

		rc = copy_times(c, nr, ts, &now);
		if (rc < 0)
			return rc;
		rc = meta_path(r, follow, p, sizeof(p));
		if (rc < 0)
			return rc;
		if (utimensat(AT_FDCWD, p, now ? NULL : ts,
			      follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		return 0;
	}
	case OP_INOTIFY: {
		AUTO_CLOSE int ifd = caller_fd(c, a[0]);
		int wd;

		if (ifd < 0)
			return -EBADF;
		rc = meta_path(r, follow, p, sizeof(p));
		if (rc < 0)
			return rc;
		wd = inotify_add_watch(ifd, p, (uint32_t)a[2]);
		if (wd < 0)
			return -errno;
		*ret = wd;
		return 0;
	}
	case OP_FANOTIFY: {
		AUTO_CLOSE int ffd = caller_fd(c, a[0]);

		if (ffd < 0)
			return -EBADF;
		rc = meta_path(r, follow, p, sizeof(p));
		if (rc < 0)
			return rc;
		if (fanotify_mark(ffd, (unsigned)a[1] & ~(unsigned)FAN_MARK_DONT_FOLLOW,
				  a[2], AT_FDCWD, p) < 0)
			return -errno;
		return 0;
	}
	case OP_OPEN: case OP_MKDIR: case OP_MKNOD: case OP_UNLINK:
	case OP_RENAME: case OP_LINK: case OP_SYMLINK: case OP_CHMOD:
	case OP_CHOWN: case OP_TRUNCATE: case OP_UNSUPPORTED:
		break;
	}
	return -ENOSYS;
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

int handle_meta(struct sup *s, struct call *c, enum op op)
{
	const __u64 *a = c->req->data.args;
	int parg = c->info->path_arg[0];
	/* fsetxattr, fremovexattr: no path argument at all (-1). */
	bool null_path = parg >= 0 && a[parg] == 0;
	bool fd_times = is_futimens(c);
	struct resolved r;
	unsigned resf = 0;
	int rc;

	resolved_init(&r);
	/*
	 * Security: a NULL path of fanotify_mark, or of statx or newfstatat
	 * with AT_EMPTY_PATH (6.11+), looks at what the dirfd names: decided
	 * on registers alone (no thread can change them) and continued, as
	 * fstat is.  utimensat and futimesat with a NULL path and a dirfd
	 * (futimens, futimes) change the times of the file it names: a call
	 * on an open file, like fchmod (copy_path()).  With AT_FDCWD, and
	 * for utime and utimes, the kernel answers EFAULT.
	 */
	if (null_path && (op == OP_FANOTIFY || op == OP_STATX ||
			     (c->req->data.nr == SYS_newfstatat &&
			      (a[3] & AT_EMPTY_PATH)) ||
			     (op == OP_UTIMES && !fd_times)))
		return notify_send_resp(s, c->req->id, 0, 0, true);

	/* Any other NULL path fails with EFAULT, as in the kernel. */
	rc = copy_path(c, fd_times ? -1 : parg, "path");
	if (rc == 0)
		rc = meta_plan(c, op, &resf);
	/* These act on the object alone (r.fd), never on its directory
	 * and name: the whole path may be taken in one jump. */
	if (op == OP_STAT || op == OP_STATX || op == OP_ACCESS ||
	    op == OP_READLINK || op == OP_CHDIR || op == OP_STATFS)
		resf |= RES_OPEN;
	if (rc == 0)
		rc = call_resolve_open(s, c, 0, resf,
				       meta_changes(op) ? RULES_ACC_WRITE : RULES_ACC_STAT,
				       0, &r);
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
	decide_path(s, c, &c->paths[0], &r,
		    meta_changes(op) ? RULES_ACC_WRITE : RULES_ACC_STAT);
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
	if ((op == OP_CHDIR || (op == OP_INOTIFY && (a[2] & IN_ONLYDIR))) &&
	    !S_ISDIR(r.st.st_mode)) {
		c->err = ENOTDIR;
		goto out;
	}
	if (op == OP_CHDIR && c->paths[0].redirected) {
		/* The kernel enters the directory: give it the new path. */
		struct proc *p = procs_find(c->tid);

		if (p && regs_rewrite(s, c, p, (const uint64_t *)c->req->data.args,
				      c->info->path_arg[0], c->paths[0].redirect,
				      c->paths[0].from,
				      c->paths[0].redirect_base) == 0) {
			resolved_release(&r);
			return 0;
		}
		c->err = EACCES;
		c->note = "chdir into a redirected path: the path could not be rewritten";
		goto out;
	}
	if (op == OP_CHDIR) {
		/*
		 * Security: chdir cannot be done for the caller, so it is
		 * continued.  If a racing thread makes the kernel enter
		 * another directory, the caller gains nothing: every later
		 * path is resolved again from its real cwd, and what the
		 * directory's existence tells is what stat(2) tells.
		 */
		if (faccessat(r.fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0) {
			c->err = errno;
			goto out;
		}
		resolved_release(&r);
		/* The kernel's checks were just made: this is its answer
		 * unless the directory goes away in between. */
		c->result = 0;
		c->have_result = true;
		c->note = "chdir: done by the kernel";
		return notify_finish(s, c, true);
	}
	c->emulated = true;
	if (meta_changes(op) && notify_record_before_change(s, c) < 0)
		goto out;
	{
		int64_t ret = 0;

		rc = meta_emulate(s, c, op, &r, resf & RES_FOLLOW, &ret);
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
