/* SPDX-License-Identifier: MIT */
/*
 * Calls on the file an fd names that are decided as a change of that
 * file: file attribute ioctls and file leases.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

/*
 * An ioctl that changes the attributes of the file its fd names
 * (rules_fileattr_cmd(): chattr's flags, FS_IOC_FSSETXATTR, the inode
 * generation), under a policy that mediates fchmod: decided as fchmod of
 * that file (a write), and as an ioctl where rules name ioctl; the
 * stricter verdict stands.  The record shows the ioctl, its fd and cmd,
 * and the file's path.
 */
static const struct rules_syscall_info ioctl_on_file = {
	.name = "ioctl", .nr = SYS_ioctl, .kind = RULES_KIND_PATH,
	.access = RULES_ACC_WRITE, .path_arg = { -1, -1 },
	.dirfd_arg = { 0, -1 }, .addr_arg = -1, .addrlen_arg = -1,
};

/* The bytes of a file attribute ioctl's argument, which the kernel reads
 * once and sysgate can copy; 0: it points to more (verity, encryption). */
static size_t fileattr_arg_len(unsigned cmd)
{
	switch (cmd) {
	case FS_IOC_SETFLAGS: case FS_IOC32_SETFLAGS:
	case FS_IOC_SETVERSION: case FS_IOC32_SETVERSION:
		return sizeof(int);
	case FS_IOC_FSSETXATTR:
		return sizeof(struct fsxattr);
	default:
		return 0;
	}
}

int fileattr_call(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	unsigned cmd = (unsigned)a[1];
	struct rules_event ev = { .nr = c->req->data.nr, .exe = c->exe };
	struct rules_verdict scalar;
	struct resolved r;
	int rc;

	memcpy(ev.args, a, sizeof(ev.args));
	rules_match(s->run.rules, &ev, &scalar);
	resolved_init(&r);
	c->info = &ioctl_on_file;
	c->match_nr = SYS_fchmod;
	rc = copy_path(c, -1, "fd");
	if (rc == 0)
		rc = call_resolve_open(s, c, 0, RES_FOLLOW, RULES_ACC_WRITE, 0,
				       &r);
	if (!notify_id_valid(s, c->req->id))
		goto gone;
	if (rc < 0) {
		/* No file: EBADF, as the kernel answers (O_PATH too). */
		c->err = -rc;
		goto out;
	}
	decide_path(s, c, &c->paths[0], &r, RULES_ACC_WRITE);
	decide_call(c);
	if (rules_verdict_rank(&scalar) > rules_verdict_rank(&c->v))
		c->v = scalar;
	if (c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_REWRITE) {
		/* Neither an fd nor the flags word can be redirected here:
		 * fail closed. */
		notify_verdict_builtin(&c->v, "sysgate:unsupported", EACCES);
		c->note = "a change of a file's attributes cannot be rewritten";
		goto out;
	}
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;
	if (c->v.action != RULES_ALLOW)
		goto out;
	if (!tracee_files_shared(c->tid)) {
		/*
		 * Security: continued, and the kernel takes the fd by its
		 * number again; no other task shares the caller's fd table,
		 * and the caller waits for this answer, so the number still
		 * names the file decided on (the flags word is not decided
		 * on: any value is a write of that file).  A task that shares
		 * it and has not run yet is held until the call is over.
		 */
		tracee_fd_call_continued(c->tid);
		resolved_release(&r);
		return notify_finish(s, c, true);
	}
	if (s->run.as_caller || !fileattr_arg_len(cmd)) {
		/*
		 * Security: continued, a sharer of the table could swap the
		 * fd first; carried out here under --user it would be done
		 * with root's capabilities (CAP_LINUX_IMMUTABLE is not one
		 * the file-system uid drops), and the verity and encryption
		 * commands take pointers that sysgate does not copy: refused.
		 */
		notify_verdict_builtin(&c->v, "sysgate:shared-fds", EPERM);
		c->note = s->run.as_caller ?
			  "a file attribute ioctl with an fd table that another "
			  "task shares, under --user" :
			  "a verity or encryption ioctl with an fd table that "
			  "another task shares";
		goto out;
	}
	{
		/*
		 * Security: carried out on the file taken from the caller's
		 * table (the one decided on), with a copy of the argument:
		 * the supervisor runs as the caller's user, with no more
		 * capabilities than the tree but CAP_SYS_PTRACE and
		 * CAP_SYS_RESOURCE, which launch.c drops from it.
		 */
		union {
			int word;
			struct fsxattr fsx;
		} arg;

		rc = tracee_read(c->tid, a[2], &arg, fileattr_arg_len(cmd));
		if (rc < 0) {
			c->err = -rc;
			goto out;
		}
		c->emulated = true;
		if (notify_record_before_change(s, c) < 0)
			goto out;
		call_result(c, ioctl(r.fd, cmd, &arg) < 0 ? -errno : 0);
	}
out:
	resolved_release(&r);
	return notify_finish(s, c, false);
gone:
	resolved_release(&r);
	return 0;
}

/*
 * Security: a file lease (fcntl F_SETLEASE, F_RDLCK or F_WRLCK) makes
 * every other process that opens the file for writing, or truncates it,
 * wait for the holder (up to lease-break-time, 45 s by default) and tells
 * the holder about it: a hold on a file shared with the whole system.
 * Under a policy that mediates fchmod it is decided as a change of the
 * file its fd names (a write, as an fchmod): allowed where the tree may
 * write, refused on files it may only read.  Continued, for the lease
 * belongs to the caller's open file and its break signal goes to the
 * caller; so refused when another task shares the caller's fd table and
 * could swap the fd first.
 */
static const struct rules_syscall_info fcntl_on_file = {
	.name = "fcntl", .nr = SYS_fcntl, .kind = RULES_KIND_PATH,
	.access = RULES_ACC_WRITE, .path_arg = { -1, -1 },
	.dirfd_arg = { 0, -1 }, .addr_arg = -1, .addrlen_arg = -1,
};

bool is_lease_taken(const __u64 *a)
{
	return (uint32_t)a[1] == F_SETLEASE && (uint32_t)a[2] != F_UNLCK;
}

int lease_call(struct sup *s, struct call *c)
{
	struct rules_event ev = { .nr = c->req->data.nr, .exe = c->exe };
	struct rules_verdict scalar;
	struct resolved r;
	int rc;

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	rules_match(s->run.rules, &ev, &scalar);
	resolved_init(&r);
	c->info = &fcntl_on_file;
	c->match_nr = SYS_fchmod;
	rc = copy_path(c, -1, "fd");
	if (rc == 0)
		rc = call_resolve_open(s, c, 0, RES_FOLLOW, RULES_ACC_WRITE, 0,
				       &r);
	if (rc == 0 && notify_id_valid(s, c->req->id))
		decide_path(s, c, &c->paths[0], &r, RULES_ACC_WRITE);
	resolved_release(&r);
	if (!notify_id_valid(s, c->req->id))
		return 0;
	if (rc < 0) {
		/* No file: EBADF, as the kernel answers. */
		c->err = -rc;
		return notify_finish(s, c, false);
	}
	decide_call(c);
	if (rules_verdict_rank(&scalar) > rules_verdict_rank(&c->v))
		c->v = scalar;
	if (c->v.stack && stack_request(s, c) > 0)
		return 0;
	if (c->v.action == RULES_REWRITE) {
		notify_verdict_builtin(&c->v, "sysgate:unsupported", EACCES);
		c->note = "a file lease cannot be rewritten";
	}
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		return 0;
	if (c->v.action == RULES_ALLOW && tracee_files_shared(c->tid)) {
		notify_verdict_builtin(&c->v, "sysgate:shared-fds", EPERM);
		c->note = "a file lease with an fd table that another task "
			  "shares";
	}
	if (c->v.action != RULES_ALLOW)
		return notify_finish(s, c, false);
	/* Security: no other task shares the table and the caller waits:
	 * the number still names the file decided on. */
	tracee_fd_call_continued(c->tid);
	return notify_finish(s, c, true);
}
