/* SPDX-License-Identifier: MIT */
/* The open family: open, openat, openat2, creat. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/cpubind.h"
#include "supervisor/notify.h"
#include "supervisor/pool.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/regs.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

/* Retries when a racing process changes the file system between our check
 * and our action (an O_EXCL create that meets a new entry). */
#define NOTIFY_MAX_RETRIES 8

static unsigned open_access(uint64_t flags, bool exists, unsigned *second)
{
	*second = 0;
	if (flags & O_PATH)
		return RULES_ACC_STAT;
	if (!exists)
		return (flags & O_CREAT) ? RULES_ACC_CREATE : RULES_ACC_READ;
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return (flags & O_TRUNC) ? RULES_ACC_WRITE : RULES_ACC_READ;
	case O_WRONLY:
		return RULES_ACC_WRITE;
	default:
		*second = RULES_ACC_WRITE;
		return RULES_ACC_READ;
	}
}

struct open_args {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

static int get_open_args(struct call *c, struct open_args *o)
{
	const __u64 *a = c->req->data.args;

	switch (c->req->data.nr) {
	case SYS_open:
		o->flags = (uint32_t)a[1];
		o->mode = (uint32_t)a[2];
		return 0;
	case SYS_creat:
		o->flags = O_CREAT | O_WRONLY | O_TRUNC;
		o->mode = (uint32_t)a[1];
		return 0;
	case SYS_openat:
		o->flags = (uint32_t)a[2];
		o->mode = (uint32_t)a[3];
		return 0;
	case SYS_openat2: {
		struct open_how how = { 0 };
		size_t size = a[3];
		int r;

		if (size < OPEN_HOW_SIZE_VER0)
			return -EINVAL;
		if (size > 4096)
			return -E2BIG;
		r = tracee_read(c->tid, a[2], &how,
				size < sizeof(how) ? size : sizeof(how));
		if (r < 0)
			return r;
		/* A larger struct must have zeros past what we know. */
		for (size_t off = sizeof(how); off < size; off++) {
			unsigned char b;

			r = tracee_read(c->tid, a[2] + off, &b, 1);
			if (r < 0)
				return r;
			if (b)
				return -E2BIG;
		}
		if (how.resolve & ~(uint64_t)(RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS |
					      RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH |
					      RESOLVE_IN_ROOT | RESOLVE_CACHED))
			return -EINVAL;
		if ((how.resolve & RESOLVE_BENEATH) && (how.resolve & RESOLVE_IN_ROOT))
			return -EINVAL;
		if (how.flags >> 32)
			return -EINVAL;
		if (!(how.flags & (O_CREAT | __O_TMPFILE)) && how.mode)
			return -EINVAL;
		if (how.mode & ~(uint64_t)07777)
			return -EINVAL;
		o->flags = how.flags;
		o->mode = how.mode;
		o->resolve = how.resolve;
		return 0;
	}
	default:
		return -ENOSYS;
	}
}

static unsigned resolve_flags_for(const struct open_args *o)
{
	unsigned f = 0;

	if (!(o->flags & O_NOFOLLOW) &&
	    !((o->flags & O_CREAT) && (o->flags & O_EXCL)))
		f |= RES_FOLLOW;
	if ((o->flags & O_TMPFILE) == O_TMPFILE)
		f |= RES_FOLLOW;
	if (o->resolve & RESOLVE_NO_SYMLINKS)
		f |= RES_NO_SYMLINKS;
	if (o->resolve & RESOLVE_NO_MAGICLINKS)
		f |= RES_NO_MAGICLINKS;
	if (o->resolve & RESOLVE_BENEATH)
		f |= RES_BENEATH;
	if (o->resolve & RESOLVE_IN_ROOT)
		f |= RES_IN_ROOT;
	if (o->resolve & RESOLVE_NO_XDEV)
		f |= RES_NO_XDEV;
	return f;
}

int reopen_fd(int fd, uint64_t flags)
{
	char p[64];
	int nf;
	/*
	 * Reopen the object we checked through its fd: no path walk happens
	 * again.  O_NOCTTY: the supervisor must not acquire a terminal.
	 */
	int dir = resolve_self_fd_dir();
	int oflags = (int)((flags & ~(uint64_t)(O_CREAT | O_EXCL | O_NOFOLLOW)) |
			   O_NOCTTY | O_CLOEXEC);

	if (dir >= 0) {
		snprintf(p, sizeof(p), "%d", fd);
		nf = openat(dir, p, oflags);
	} else {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		nf = open(p, oflags);
	}
	return nf < 0 ? -errno : nf;
}

/* The open itself, on what was resolved.  Returns our fd or -errno;
 * -EAGAIN means "the file system changed under us: resolve again". */
static int do_open(struct call *c, const struct open_args *o,
		   const struct resolved *r)
{
	uint64_t f = o->flags;

	if ((f & O_TMPFILE) == O_TMPFILE) {
		int nf = openat(r->fd, ".", (int)(f | O_CLOEXEC),
				(mode_t)(o->mode & ~(uint64_t)notify_caller_umask(c) & 07777));

		return nf < 0 ? -errno : nf;
	}
	if (r->fd >= 0) {
		if (S_ISLNK(r->st.st_mode)) {
			/* Only reached with O_NOFOLLOW (or O_CREAT|O_EXCL). */
			if (f & O_PATH) {
				int nf = fcntl(r->fd, F_DUPFD_CLOEXEC, 0);

				return nf < 0 ? -errno : nf;
			}
			/* The kernel tests O_DIRECTORY first. */
			return (f & O_DIRECTORY) ? -ENOTDIR : -ELOOP;
		}
		return reopen_fd(r->fd, f);
	}
	/*
	 * Create: exclusively, so that a file appearing meanwhile is found
	 * and decided again as what it is.  O_EXCL alone never follows a
	 * symlink in the last component; no O_NOFOLLOW is added, since the
	 * file keeps it in its status flags (F_GETFL) and the caller did
	 * not ask for it.
	 */
	int nf = openat(r->parent_fd, r->name,
			(int)((f | O_CREAT | O_EXCL | O_NOCTTY |
			       O_CLOEXEC) & ~(uint64_t)O_PATH),
			(mode_t)(o->mode & ~(uint64_t)notify_caller_umask(c) & 07777));
	if (nf < 0)
		return (errno == EEXIST && !(f & O_EXCL)) ? -EAGAIN : -errno;
	return nf;
}

struct fifo_job {
	struct call_job job;	/* first */
	struct open_args o;
	int fd;
};

static void *fifo_thread(void *arg)
{
	struct fifo_job *j = arg;
	struct call *c = &j->job.c;
	int nf = call_job_enter(&j->job);

	if (nf == 0)
		nf = reopen_fd(j->fd, j->o.flags);
	call_job_leave(&j->job);
	close(j->fd);
	if (nf >= 0) {
		int remote = notify_add_fd(j->job.s, j->job.req.id, nf,
				    j->o.flags & O_CLOEXEC);

		close(nf);
		nf = remote;
	}
	call_result(c, nf);
	c->emulated = true;
	notify_finish(j->job.s, c, false);
	free(j);
	return NULL;
}

/* A FIFO opened without O_NONBLOCK blocks until its other end opens:
 * do it on a thread so the supervisor keeps serving the tree. */
static int open_fifo_async(struct sup *s, struct call *c,
			   const struct open_args *o, struct resolved *r)
{
	struct fifo_job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	call_job_init(&j->job, s, c);
	j->o = *o;
	j->fd = steal_fd(&r->fd);
	if (call_job_start(&j->job, fifo_thread) < 0) {
		r->fd = j->fd;
		free(j);
		return -EAGAIN;
	}
	return 0;
}

/* What one attempt of an open came to. */
enum open_step {
	OPEN_DONE,	/* decided, carried out or not: finish the call */
	OPEN_AGAIN,	/* the file system changed under us: resolve again */
	OPEN_GONE,	/* the call is no longer waiting: nothing to answer */
	OPEN_ANSWERED,	/* answered here; *ret is the handler's value */
};

/* action = rewrite: the call is decided again on the new path. */
static enum open_step open_restart(struct sup *s, struct call *c,
				   struct resolved *r, int *ret)
{
	resolved_release(r);
	*ret = rewrite_restart(s, c);
	return OPEN_ANSWERED;
}

/* An O_PATH open, allowed: the kernel opens it. */
static enum open_step open_path_only(struct sup *s, struct call *c,
				     struct resolved *r, int *ret)
{
	struct call_path *cp = &c->paths[0];

	if (c->rewritten && cp->redirected) {
		/* The kernel opens it: give it the new path. */
		struct proc *p = procs_find(c->tid);

		if (c->req->data.nr != SYS_openat2 && p &&
		    regs_rewrite(s, c, p, (const uint64_t *)c->req->data.args,
				 c->info->path_arg[0], cp->redirect,
				 cp->from, cp->redirect_base) == 0) {
			resolved_release(r);
			*ret = 0;
			return OPEN_ANSWERED;
		}
		c->err = EACCES;
		c->note = "O_PATH open of a redirected path: the path could not be rewritten";
		return OPEN_DONE;
	}
	/*
	 * Security: the one CONTINUE after a path was read.
	 * SECCOMP_IOCTL_NOTIF_ADDFD cannot carry an O_PATH
	 * file (the kernel's fget() refuses them), so the
	 * kernel opens it.  A racing thread could make that
	 * another object than the one checked, and all it
	 * would get is an O_PATH fd: no read, no write, no
	 * fchmod/fchown; every use of it as a dirfd, through
	 * /proc/self/fd or with AT_EMPTY_PATH is a mediated
	 * call resolved again on the real object.  What it
	 * can learn (fstat) is what stat(2) tells in the
	 * kernel.  O_PATH ignores O_CREAT and O_TRUNC: no
	 * change is made.  See SECURITY.md.
	 */
	resolved_release(r);
	c->note = "O_PATH: opened by the kernel";
	*ret = notify_finish(s, c, true);
	return OPEN_ANSWERED;
}

/*
 * Something appeared where we were to create: the recorded decision gets
 * its outcome, and the call is decided again on what is there now.
 */
static void open_raced(struct sup *s, struct call *c)
{
	if (!c->pre_seq)
		return;
	c->err = EAGAIN;
	c->note = "raced: decided again";
	notify_records_lock();
	if (record_result(s, c) < 0)
		sup_fail(s, "cannot write the audit trail");
	notify_records_unlock();
	c->pre_seq = 0;
	c->err = 0;
	c->note = NULL;
}

/* Give the caller our fd nf of the file it opens (closed here). */
static enum open_step open_hand_over(struct sup *s, struct call *c,
				     const struct open_args *o, int nf)
{
	struct cpubind bind;

	/* The caller on this CPU for the ADDFD's wake-up (cpubind.c);
	 * its mask is back before the reply, but in a run of calls
	 * from it alone. */
	cpubind_enter(c->tid, &bind, caller_alone(s));
	int remote = notify_add_fd(s, c->req->id, nf, o->flags & O_CLOEXEC);
	int unbound = cpubind_leave(&bind);

	if (unbound < 0)
		fprintf(stderr, "sysgate: warning: the CPU mask of task %d could not be put back (%s); it stays on one CPU\n",
			(int)c->tid, strerror(-unbound));
	close(nf);
	if (remote < 0) {
		if (remote == -ENOENT)
			return OPEN_GONE;
		c->err = -remote;
		if (remote == -EMFILE) {
			uint64_t lim = 0;

			rules_limit(s->run.rules, RULES_LIMIT_OPEN_FILES, &lim);
			if (lim && record_limit(s, procs_find(c->tid),
						RULES_LIMIT_OPEN_FILES, lim,
						"open refused with EMFILE") < 0)
				sup_fail(s, "cannot write the audit trail");
		}
		return OPEN_DONE;
	}
	c->result = remote;
	c->have_result = true;
	return OPEN_DONE;
}

/* The open, allowed, carried out on what was resolved. */
static enum open_step open_carry_out(struct sup *s, struct call *c,
				     const struct open_args *o,
				     struct resolved *r, bool exists, int *ret)
{
	int nf;

	if (!exists && (r->partial || !(o->flags & O_CREAT) ||
			(o->flags & O_PATH))) {
		c->err = ENOENT;
		return OPEN_DONE;
	}
	if (o->flags & O_PATH)
		return open_path_only(s, c, r, ret);
	if (!exists && r->trailing_slash) {
		c->err = EISDIR;
		return OPEN_DONE;
	}
	if (exists && S_ISFIFO(r->st.st_mode) && !(o->flags & O_NONBLOCK) &&
	    !(o->flags & O_PATH)) {
		c->emulated = true;
		if (open_fifo_async(s, c, o, r) == 0) {
			resolved_release(r);
			*ret = 0;
			return OPEN_ANSWERED;
		}
	}
	if ((!exists && (o->flags & O_CREAT)) ||
	    (exists && (o->flags & O_TRUNC))) {
		if (notify_record_before_change(s, c) < 0)
			return OPEN_DONE;
	}
	/* A directory the resolver opened is the one checked. */
	nf = r->opened ? steal_fd(&r->fd) : do_open(c, o, r);
	if (nf == -EAGAIN) {
		open_raced(s, c);
		return OPEN_AGAIN;
	}
	c->emulated = true;
	if (nf < 0) {
		c->err = -nf;
		return OPEN_DONE;
	}
	return open_hand_over(s, c, o, nf);
}

/* Resolve, decide and (if allowed) carry out the open, once. */
static enum open_step open_attempt(struct sup *s, struct call *c,
				   const struct open_args *o, int dir_oflags,
				   struct resolved *r, int *ret)
{
	struct call_path *cp = &c->paths[0];
	unsigned second;
	unsigned acc;
	bool exists;
	bool id_checked;
	int rc;

	resolved_release(r);
	cp->checked = false;
	rc = call_resolve_open(s, c, 0, resolve_flags_for(o) | RES_OPEN,
			       (o->flags & O_CREAT) ? RULES_ACC_CREATE :
			       open_access(o->flags, true, &second),
			       dir_oflags, r);
	/*
	 * Is the call still waiting (the caller not killed meanwhile)?
	 * An open of an existing file that creates and truncates
	 * nothing may ask later: if it is allowed, the ADDFD that
	 * gives the caller its fd fails (ENOENT) for a call no longer
	 * waiting, and nothing is recorded; everything else asks now.
	 * The pid read from cannot have been reused: the caller is
	 * traced, and only this thread reaps it.
	 */
	id_checked = !(rc == 0 && r->fd >= 0 &&
		       !(o->flags & (O_CREAT | O_TRUNC | O_PATH)));
	if (id_checked && !notify_id_valid(s, c->req->id))
		return OPEN_GONE;
	if (rc == -EREMCHG)
		return open_restart(s, c, r, ret);
	if (rc < 0) {
		c->err = -rc;
		return OPEN_DONE;
	}
	exists = r->fd >= 0;
	if (exists && (o->flags & O_CREAT) && (o->flags & O_EXCL) &&
	    (o->flags & O_TMPFILE) != O_TMPFILE) {
		/* Unless a redirect sends the create elsewhere. */
		decide_path(s, c, cp, r, RULES_ACC_CREATE);
		if (!c->rewritten && cp->v.action == RULES_REWRITE)
			return open_restart(s, c, r, ret);
		answer_exists(s, c, cp, r);
		return OPEN_DONE;
	}
	if ((o->flags & O_TMPFILE) == O_TMPFILE) {
		if (!exists) {
			c->err = ENOENT;
			return OPEN_DONE;
		}
		decide_path(s, c, cp, r, RULES_ACC_CREATE);
	} else {
		acc = open_access(o->flags, exists, &second);
		decide_path(s, c, cp, r, acc);
		if (second)
			decide_path(s, c, cp, r, second);
	}
	decide_call(c);
	if (!id_checked && (c->v.action != RULES_ALLOW || c->v.stack ||
			    S_ISFIFO(r->st.st_mode)) &&
	    !notify_id_valid(s, c->req->id))
		return OPEN_GONE;
	if (c->v.stack && stack_request(s, c) > 0)
		return OPEN_GONE;
	if (c->v.action == RULES_REWRITE)
		return open_restart(s, c, r, ret);
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		return OPEN_GONE;
	if (c->v.action != RULES_ALLOW)
		return OPEN_DONE;
	return open_carry_out(s, c, o, r, exists, ret);
}

int handle_open(struct sup *s, struct call *c, struct proc *p)
{
	struct open_args o = { 0 };
	struct resolved r;
	enum open_step step = OPEN_AGAIN;
	int dir_oflags = 0;
	int ret = 0;
	int rc;

	(void)p;
	resolved_init(&r);
	rc = copy_path(c, c->info->path_arg[0], "path");
	if (rc == 0)
		rc = get_open_args(c, &o);
	c->open_flags = o.flags;
	if (rc < 0) {
		c->err = -rc;
		return notify_finish(s, c, false);
	}
	/* A directory opened read-only: the resolver may open it with the
	 * call's flags at once (see jump_whole() in resolve.c). */
	if ((o.flags & O_DIRECTORY) && (o.flags & O_ACCMODE) == O_RDONLY &&
	    (o.flags & O_TMPFILE) != O_TMPFILE &&
	    !(o.flags & (O_CREAT | O_TRUNC | O_PATH)))
		dir_oflags = (int)o.flags;
	for (int attempt = 0; attempt < NOTIFY_MAX_RETRIES &&
			      step == OPEN_AGAIN; attempt++)
		step = open_attempt(s, c, &o, dir_oflags, &r, &ret);
	resolved_release(&r);
	if (step == OPEN_GONE)
		return 0;
	if (step == OPEN_ANSWERED)
		return ret;
	if (!c->err && !c->have_result && c->v.action == RULES_ALLOW)
		c->err = EAGAIN;	/* the race did not settle */
	return notify_finish(s, c, false);
}
