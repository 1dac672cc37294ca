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

#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/handlers.h"

/* One call being carried out: its row, its flags word, its paths. */
struct change {
	struct call *c;
	const struct change_call *row;
	uint64_t flags;
	struct resolved *r;
	unsigned n;
};

static uint64_t change_arg(const struct change *ch, int idx)
{
	return ch->c->req->data.args[idx];
}

/*
 * The stages of one operation: plan (how path idx is resolved, which
 * access it is, whether the flags are valid), precheck (the kernel's
 * answers that do not depend on the policy once the targets are known: a
 * positive errno, or 0 to go on) and emulate (the change itself, 0 or
 * -errno).
 */
struct change_op {
	int (*plan)(const struct change *ch, int idx, unsigned *res,
		    unsigned *acc);
	int (*precheck)(const struct change *ch);
	int (*emulate)(const struct change *ch);
};

/* mkdir, mknod, symlink: a new name. */
static int create_plan(const struct change *ch, int idx, unsigned *res,
		       unsigned *acc)
{
	(void)ch;
	(void)idx;
	*res = 0;
	*acc = RULES_ACC_CREATE;
	return 0;
}

static int create_precheck(const struct change *ch)
{
	const struct resolved *r = ch->r;

	if (r[0].fd >= 0)
		return EEXIST;
	if (r[0].trailing_slash && ch->row->op != OP_MKDIR)
		return r[0].fd >= 0 ? EEXIST : ENOENT;
	return 0;
}

static mode_t caller_mode(struct call *c, uint64_t mode)
{
	return (mode_t)(mode & 07777 & ~(uint64_t)notify_caller_umask(c));
}

static int mkdir_emulate(const struct change *ch)
{
	uint64_t mode = change_arg(ch, ch->row->mode);

	return mkdirat(ch->r[0].parent_fd, ch->r[0].name,
		       caller_mode(ch->c, mode)) < 0 ? -errno : 0;
}

static int mknod_emulate(const struct change *ch)
{
	uint64_t mode = change_arg(ch, ch->row->mode);
	uint64_t dev = change_arg(ch, ch->row->dev);
	mode_t type = (mode_t)mode & S_IFMT;

	if (type == 0)
		type = S_IFREG;
	return mknodat(ch->r[0].parent_fd, ch->r[0].name,
		       type | caller_mode(ch->c, mode), (dev_t)dev) < 0 ?
	       -errno : 0;
}

static int symlink_emulate(const struct change *ch)
{
	/* paths[1] holds the target string (not a checked path). */
	return symlinkat(ch->c->paths[1].raw, ch->r[0].parent_fd,
			 ch->r[0].name) < 0 ? -errno : 0;
}

static int unlink_plan(const struct change *ch, int idx, unsigned *res,
		       unsigned *acc)
{
	(void)idx;
	*res = 0;
	if (ch->flags & ~(uint64_t)AT_REMOVEDIR)
		return -EINVAL;
	*acc = RULES_ACC_DELETE;
	return 0;
}

static int unlink_precheck(const struct change *ch)
{
	const struct resolved *r = ch->r;

	if (!strcmp(r[0].name, "."))
		return EINVAL;
	if (!strcmp(r[0].name, ".."))
		return ENOTEMPTY;
	if (r[0].parent_fd < 0)
		return EBUSY;
	if (r[0].fd < 0)
		return ENOENT;
	if (!(ch->flags & AT_REMOVEDIR)) {
		if (S_ISDIR(r[0].st.st_mode))
			return EISDIR;
	} else if (!S_ISDIR(r[0].st.st_mode)) {
		return ENOTDIR;
	}
	return 0;
}

static int unlink_emulate(const struct change *ch)
{
	return unlinkat(ch->r[0].parent_fd, ch->r[0].name,
			(int)ch->flags) < 0 ? -errno : 0;
}

static int rename_plan(const struct change *ch, int idx, unsigned *res,
		       unsigned *acc)
{
	*res = 0;
	if (ch->flags & ~(uint64_t)(RENAME_NOREPLACE | RENAME_EXCHANGE |
				    RENAME_WHITEOUT))
		return -EINVAL;
	*acc = idx == 0 ? RULES_ACC_DELETE : RULES_ACC_CREATE;
	if (ch->flags & RENAME_EXCHANGE)
		*acc = RULES_ACC_WRITE;
	return 0;
}

/* rename and link: an existing file, a name for it. */
static int rename_precheck(const struct change *ch)
{
	const struct resolved *r = ch->r;
	bool link = ch->row->op == OP_LINK;

	if (r[0].fd < 0)
		return ENOENT;
	if (link && (ch->flags & AT_EMPTY_PATH) &&
	    ch->c->paths[0].raw[0] == '\0') {
		/* The fd's own file: no parent needed. */
		if (r[1].parent_fd < 0 || r[1].fd >= 0)
			return EEXIST;
		if (S_ISDIR(r[0].st.st_mode))
			return EPERM;
		return 0;
	}
	if (r[0].parent_fd < 0 || (ch->n > 1 && r[1].parent_fd < 0))
		return link ? EEXIST : EBUSY;
	if (link && r[1].fd >= 0)
		return EEXIST;
	if (link && S_ISDIR(r[0].st.st_mode))
		return EPERM;
	return 0;
}

static int rename_emulate(const struct change *ch)
{
	const struct resolved *r = ch->r;

	return renameat2(r[0].parent_fd, r[0].name, r[1].parent_fd,
			 r[1].name, (unsigned)ch->flags) < 0 ? -errno : 0;
}

static int link_plan(const struct change *ch, int idx, unsigned *res,
		     unsigned *acc)
{
	*res = 0;
	if (ch->flags & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (idx == 0 && (ch->flags & AT_SYMLINK_FOLLOW))
		*res = RES_FOLLOW;
	/* linkat(fd, "", ..., AT_EMPTY_PATH): a name for the open
	 * file itself (an O_TMPFILE file above all). */
	if (idx == 0 && (ch->flags & AT_EMPTY_PATH))
		*res |= RES_EMPTY_PATH;
	*acc = idx == 0 ? RULES_ACC_WRITE : RULES_ACC_CREATE;
	return 0;
}

static int link_emulate(const struct change *ch)
{
	const struct resolved *r = ch->r;
	int flags = (int)ch->flags;
	char p[64];
	int rc;

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
	return rc < 0 ? -errno : 0;
}

/* chmod, chown, truncate: a write of an existing file. */
static int attr_plan(const struct change *ch, int idx, unsigned *res,
		     unsigned *acc)
{
	(void)idx;
	*res = ch->row->follow ? RES_FOLLOW : 0;
	if (ch->flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (ch->flags & AT_SYMLINK_NOFOLLOW)
		*res = 0;
	if (ch->flags & AT_EMPTY_PATH)
		*res |= RES_EMPTY_PATH;
	*acc = RULES_ACC_WRITE;
	return 0;
}

static int attr_precheck(const struct change *ch)
{
	return ch->r[0].fd < 0 ? ENOENT : 0;
}

static int chmod_emulate(const struct change *ch)
{
	uint64_t mode = change_arg(ch, ch->row->mode);
	char p[64];

	/* Linux cannot change a symlink's own mode. */
	if (S_ISLNK(ch->r[0].st.st_mode))
		return -EOPNOTSUPP;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", ch->r[0].fd);
	return chmod(p, (mode_t)(mode & 07777)) < 0 ? -errno : 0;
}

static int chown_emulate(const struct change *ch)
{
	uint64_t uid = change_arg(ch, ch->row->owner);
	uint64_t gid = change_arg(ch, ch->row->owner + 1);

	return fchownat(ch->r[0].fd, "", (uid_t)uid, (gid_t)gid,
			AT_EMPTY_PATH) < 0 ? -errno : 0;
}

static int truncate_emulate(const struct change *ch)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", ch->r[0].fd);
	return truncate(p, (off_t)change_arg(ch, ch->row->owner)) < 0 ?
	       -errno : 0;
}

static const struct change_op change_ops[] = {
	[OP_MKDIR] = { create_plan, create_precheck, mkdir_emulate },
	[OP_MKNOD] = { create_plan, create_precheck, mknod_emulate },
	[OP_SYMLINK] = { create_plan, create_precheck, symlink_emulate },
	[OP_UNLINK] = { unlink_plan, unlink_precheck, unlink_emulate },
	[OP_RENAME] = { rename_plan, rename_precheck, rename_emulate },
	[OP_LINK] = { link_plan, rename_precheck, link_emulate },
	[OP_CHMOD] = { attr_plan, attr_precheck, chmod_emulate },
	[OP_CHOWN] = { attr_plan, attr_precheck, chown_emulate },
	[OP_TRUNCATE] = { attr_plan, attr_precheck, truncate_emulate },
};

static int precheck_change(const struct change *ch)
{
	for (unsigned i = 0; i < ch->n; i++)
		if (ch->r[i].partial)
			return ENOENT;	/* a directory on the way is missing */
	return change_ops[ch->row->op].precheck(ch);
}

int handle_change(struct sup *s, struct call *c, struct proc *p)
{
	const struct change_call *row = change_call_of(c->req->data.nr);
	struct resolved r[CALL_MAX_PATHS];
	unsigned n = c->info->path_arg[1] >= 0 ? 2 : 1;
	struct change ch = { .c = c, .row = row, .r = r, .n = n };
	bool redirect_missing = false;
	enum op op;
	int rc = 0;

	(void)p;
	if (!row)
		return notify_refuse_unsupported(s, c);
	op = row->op;
	ch.flags = (uint64_t)row->fixed_flags |
		   (row->flags >= 0 ? change_arg(&ch, row->flags) : 0);
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

		rc = change_ops[op].plan(&ch, (int)i, &resf, &acc);
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

	int pre = precheck_change(&ch);

	if (c->v.action != RULES_ALLOW)
		goto out;
	if (pre) {
		c->err = pre;
		goto out;
	}
	c->emulated = true;
	if (notify_record_before_change(s, c) < 0)
		goto out;
	rc = change_ops[op].emulate(&ch);
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
