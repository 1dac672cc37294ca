/* SPDX-License-Identifier: MIT */
/*
 * Calls that change the file system (mkdir, mknod, unlink, rename, link,
 * symlink, chmod, chown, truncate), carried out by the supervisor.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/internal.h"
#include "supervisor/handlers.h"

static unsigned res_flags_nofollow(void)
{
	return 0;
}

static int emulate_change(struct call *c, enum op op, struct resolved *r)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	char p[64];
	int rc = 0;

	switch (op) {
	case OP_MKDIR: {
		uint64_t mode = nr == SYS_mkdir ? a[1] : a[2];

		rc = mkdirat(r[0].parent_fd, r[0].name,
			     (mode_t)(mode & 07777 & ~(uint64_t)notify_caller_umask(c)));
		break;
	}
	case OP_MKNOD: {
		uint64_t mode = nr == SYS_mknod ? a[1] : a[2];
		uint64_t dev = nr == SYS_mknod ? a[2] : a[3];
		mode_t type = (mode_t)mode & S_IFMT;

		if (type == 0)
			type = S_IFREG;
		rc = mknodat(r[0].parent_fd, r[0].name,
			     type | (mode_t)(mode & 07777 & ~(uint64_t)notify_caller_umask(c)),
			     (dev_t)dev);
		break;
	}
	case OP_UNLINK: {
		int flags = nr == SYS_rmdir ? AT_REMOVEDIR :
			    nr == SYS_unlinkat ? (int)a[2] : 0;

		rc = unlinkat(r[0].parent_fd, r[0].name, flags);
		break;
	}
	case OP_RENAME: {
		unsigned flags = nr == SYS_renameat2 ? (unsigned)a[4] : 0;

		rc = renameat2(r[0].parent_fd, r[0].name, r[1].parent_fd,
			       r[1].name, flags);
		break;
	}
	case OP_LINK: {
		int flags = nr == SYS_linkat ? (int)a[4] : 0;

		if ((flags & AT_EMPTY_PATH) && r[0].parent_fd < 0) {
			rc = linkat(r[0].fd, "", r[1].parent_fd, r[1].name,
				    AT_EMPTY_PATH);
		} else if (flags & AT_SYMLINK_FOLLOW) {
			snprintf(p, sizeof(p), "/proc/self/fd/%d", r[0].fd);
			rc = linkat(AT_FDCWD, p, r[1].parent_fd, r[1].name,
				    AT_SYMLINK_FOLLOW);
		} else {
			rc = linkat(r[0].parent_fd, r[0].name, r[1].parent_fd,
				    r[1].name, 0);
		}
		break;
	}
	case OP_SYMLINK:
		/* paths[1] holds the target string (not a checked path). */
		rc = symlinkat(c->paths[1].raw, r[0].parent_fd, r[0].name);
		break;
	case OP_CHMOD: {
		uint64_t mode = nr == SYS_chmod || nr == SYS_fchmod ? a[1] : a[2];

		/* Linux cannot change a symlink's own mode. */
		if (S_ISLNK(r[0].st.st_mode))
			return -EOPNOTSUPP;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", r[0].fd);
		rc = chmod(p, (mode_t)(mode & 07777));
		break;
	}
	case OP_CHOWN: {
		uint64_t uid = nr == SYS_fchownat ? a[2] : a[1];
		uint64_t gid = nr == SYS_fchownat ? a[3] : a[2];

		rc = fchownat(r[0].fd, "", (uid_t)uid, (gid_t)gid,
			      AT_EMPTY_PATH);
		break;
	}
	case OP_TRUNCATE:
		snprintf(p, sizeof(p), "/proc/self/fd/%d", r[0].fd);
		rc = truncate(p, (off_t)a[1]);
		break;
	case OP_OPEN: case OP_STAT: case OP_STATX: case OP_ACCESS:
	case OP_READLINK: case OP_CHDIR: case OP_STATFS: case OP_GETXATTR:
	case OP_LISTXATTR: case OP_SETXATTR: case OP_REMOVEXATTR:
	case OP_UTIMES: case OP_INOTIFY: case OP_FANOTIFY:
	case OP_UNSUPPORTED:
		return -ENOSYS;
	}
	return rc < 0 ? -errno : 0;
}

/* Per operation: how each path is resolved and which access it is. */
static int plan_change(struct call *c, enum op op, int idx, unsigned *res,
		       unsigned *acc)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;

	*res = res_flags_nofollow();
	switch (op) {
	case OP_MKDIR: case OP_MKNOD: case OP_SYMLINK:
		*acc = RULES_ACC_CREATE;
		return 0;
	case OP_UNLINK:
		if (nr == SYS_unlinkat && (a[2] & ~(uint64_t)AT_REMOVEDIR))
			return -EINVAL;
		*acc = RULES_ACC_DELETE;
		return 0;
	case OP_RENAME:
		if (nr == SYS_renameat2 &&
		    (a[4] & ~(uint64_t)(RENAME_NOREPLACE | RENAME_EXCHANGE |
					RENAME_WHITEOUT)))
			return -EINVAL;
		*acc = idx == 0 ? RULES_ACC_DELETE : RULES_ACC_CREATE;
		if (nr == SYS_renameat2 && (a[4] & RENAME_EXCHANGE))
			*acc = RULES_ACC_WRITE;
		return 0;
	case OP_LINK:
		if (nr == SYS_linkat &&
		    (a[4] & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)))
			return -EINVAL;
		if (idx == 0 && nr == SYS_linkat && (a[4] & AT_SYMLINK_FOLLOW))
			*res = RES_FOLLOW;
		/* linkat(fd, "", ..., AT_EMPTY_PATH): a name for the open
		 * file itself (an O_TMPFILE file above all). */
		if (idx == 0 && nr == SYS_linkat && (a[4] & AT_EMPTY_PATH))
			*res |= RES_EMPTY_PATH;
		*acc = idx == 0 ? RULES_ACC_WRITE : RULES_ACC_CREATE;
		return 0;
	case OP_CHMOD:
		*res = RES_FOLLOW;
		if (nr == SYS_fchmodat2) {
			if (a[3] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
				return -EINVAL;
			if (a[3] & AT_SYMLINK_NOFOLLOW)
				*res = 0;
			if (a[3] & AT_EMPTY_PATH)
				*res |= RES_EMPTY_PATH;
		}
		*acc = RULES_ACC_WRITE;
		return 0;
	case OP_CHOWN:
		if (nr == SYS_chown)
			*res = RES_FOLLOW;
		if (nr == SYS_fchownat) {
			if (a[4] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
				return -EINVAL;
			if (!(a[4] & AT_SYMLINK_NOFOLLOW))
				*res = RES_FOLLOW;
			if (a[4] & AT_EMPTY_PATH)
				*res |= RES_EMPTY_PATH;
		}
		*acc = RULES_ACC_WRITE;
		return 0;
	case OP_TRUNCATE:
		*res = RES_FOLLOW;
		*acc = RULES_ACC_WRITE;
		return 0;
	case OP_OPEN: case OP_STAT: case OP_STATX: case OP_ACCESS:
	case OP_READLINK: case OP_CHDIR: case OP_STATFS: case OP_GETXATTR:
	case OP_LISTXATTR: case OP_SETXATTR: case OP_REMOVEXATTR:
	case OP_UTIMES: case OP_INOTIFY: case OP_FANOTIFY:
	case OP_UNSUPPORTED:
		break;
	}
	return -ENOSYS;
}

/* Kernel answers that do not depend on the policy once the targets are
 * known.  Returns a positive errno, or 0 to go on. */
static int precheck_change(struct call *c, enum op op, struct resolved *r,
			   unsigned n)
{
	int nr = c->req->data.nr;

	for (unsigned i = 0; i < n; i++)
		if (r[i].partial)
			return ENOENT;	/* a directory on the way is missing */
	switch (op) {
	case OP_MKDIR: case OP_MKNOD: case OP_SYMLINK:
		if (r[0].fd >= 0)
			return EEXIST;
		if (r[0].trailing_slash && op != OP_MKDIR)
			return r[0].fd >= 0 ? EEXIST : ENOENT;
		return 0;
	case OP_UNLINK:
		if (!strcmp(r[0].name, "."))
			return EINVAL;
		if (!strcmp(r[0].name, ".."))
			return ENOTEMPTY;
		if (r[0].parent_fd < 0)
			return EBUSY;
		if (r[0].fd < 0)
			return ENOENT;
		if (nr == SYS_unlink || (nr == SYS_unlinkat &&
					 !(c->req->data.args[2] & AT_REMOVEDIR))) {
			if (S_ISDIR(r[0].st.st_mode))
				return EISDIR;
		} else if (!S_ISDIR(r[0].st.st_mode)) {
			return ENOTDIR;
		}
		return 0;
	case OP_RENAME: case OP_LINK:
		if (r[0].fd < 0)
			return ENOENT;
		if (op == OP_LINK && nr == SYS_linkat &&
		    (c->req->data.args[4] & AT_EMPTY_PATH) &&
		    c->paths[0].raw[0] == '\0') {
			/* The fd's own file: no parent needed. */
			if (r[1].parent_fd < 0 || r[1].fd >= 0)
				return EEXIST;
			if (S_ISDIR(r[0].st.st_mode))
				return EPERM;
			return 0;
		}
		if (r[0].parent_fd < 0 || (n > 1 && r[1].parent_fd < 0))
			return op == OP_LINK ? EEXIST : EBUSY;
		if (op == OP_LINK && r[1].fd >= 0)
			return EEXIST;
		if (op == OP_LINK && S_ISDIR(r[0].st.st_mode))
			return EPERM;
		return 0;
	case OP_CHMOD: case OP_CHOWN: case OP_TRUNCATE:
		if (r[0].fd < 0)
			return ENOENT;
		return 0;
	case OP_OPEN: case OP_STAT: case OP_STATX: case OP_ACCESS:
	case OP_READLINK: case OP_CHDIR: case OP_STATFS: case OP_GETXATTR:
	case OP_LISTXATTR: case OP_SETXATTR: case OP_REMOVEXATTR:
	case OP_UTIMES: case OP_INOTIFY: case OP_FANOTIFY:
	case OP_UNSUPPORTED:
		break;
	}
	return 0;
}

int handle_change(struct sup *s, struct call *c, enum op op)
{
	struct resolved r[CALL_MAX_PATHS];
	unsigned n = c->info->path_arg[1] >= 0 ? 2 : 1;
	bool redirect_missing = false;
	int rc = 0;

	for (unsigned i = 0; i < CALL_MAX_PATHS; i++)
		resolved_init(&r[i]);

	static const char *const names2[] = { "oldpath", "newpath" };

	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = copy_path(c, c->info->path_arg[i], n > 1 ? names2[i] : "path");
	if (rc == 0 && op == OP_SYMLINK) {
		/* The target is recorded, not checked: a symlink grants
		 * nothing until it is followed, and following is checked. */
		rc = copy_path(c, 0, "target");
	}
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}

	for (unsigned i = 0; i < n; i++) {
		unsigned resf, acc;

		rc = plan_change(c, op, (int)i, &resf, &acc);
		if (rc == 0)
			rc = call_resolve(s, c, (int)i, resf, acc, &r[i]);
		if (rc == -EREMCHG) {
			/* Redirected from a missing directory: decided. */
			redirect_missing = true;
			continue;
		}
		if (rc < 0) {
			if (!notify_id_valid(s, c->req->id))
				goto gone;
			c->err = -rc;
			goto out;
		}
		/* Replacing an existing target is a write of it. */
		if (op == OP_RENAME && i == 1 && r[i].fd >= 0 &&
		    acc == RULES_ACC_CREATE)
			acc = RULES_ACC_WRITE;
		if ((op == OP_MKDIR || op == OP_MKNOD || op == OP_SYMLINK) &&
		    r[i].fd >= 0) {
			if (!notify_id_valid(s, c->req->id))
				goto gone;
			/* Unless a redirect sends the create elsewhere. */
			decide_path(s, c, &c->paths[i], &r[i], acc);
			if (!c->rewritten &&
			    c->paths[i].v.action == RULES_REWRITE)
				goto restart;
			answer_exists(s, c, &c->paths[i], &r[i]);
			goto out;
		}
		decide_path(s, c, &c->paths[i], &r[i], acc);
	}
	if (!notify_id_valid(s, c->req->id))
		goto gone;
	decide_call(c);
	if (c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_REWRITE)
		goto restart;
	if (redirect_missing)
		goto out;	/* another path denies */
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;

	int pre = precheck_change(c, op, r, n);

	if (c->v.action != RULES_ALLOW)
		goto out;
	if (pre) {
		c->err = pre;
		goto out;
	}
	c->emulated = true;
	if (notify_record_before_change(s, c) < 0)
		goto out;
	rc = emulate_change(c, op, r);
	if (rc < 0)
		c->err = -rc;
	else {
		c->result = 0;
		c->have_result = true;
	}
out:
	for (unsigned i = 0; i < CALL_MAX_PATHS; i++)
		resolved_release(&r[i]);
	return notify_finish(s, c, false);
restart:
	for (unsigned i = 0; i < CALL_MAX_PATHS; i++)
		resolved_release(&r[i]);
	return rewrite_restart(s, c);
gone:
	for (unsigned i = 0; i < CALL_MAX_PATHS; i++)
		resolved_release(&r[i]);
	return 0;
}
