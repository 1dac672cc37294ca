/* SPDX-License-Identifier: MIT */
/*
 * The paths of a call: copied once from the caller, resolved as the kernel
 * would (or as a redirect puts them), and decided by the policy.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/resolve.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

/* A dup of the caller's fd arg (from its own fd table), or -errno. */
int caller_fd(const struct call *c, uint64_t arg)
{
	return tracee_getfd(c->tid, c->tgid, (int)(int32_t)arg);
}

/* The open flags of an open-family call (openat2's are in its struct,
 * copied by handle_open into c->open_flags). */
static uint64_t open_flags_of(const struct call *c)
{
	return c->open_flags;
}

/*
 * The access mode of the open file fd refers to, or -1.  Security: fd is
 * the caller's own file description (pidfd_getfd), not its fd number
 * looked up again: another thread may have put a different file at that
 * number since (dup2), and a thread may have an fd table of its own.
 */
static int fd_accmode(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	/* An O_PATH fd grants no access at all. */
	if (flags < 0 || (flags & O_PATH))
		return -1;
	return flags & O_ACCMODE;
}

/*
 * Reopening, through /proc/self/fd/N, a file the caller already holds open
 * with at least the access it asks for grants nothing new (/dev/stdout
 * redirected to a file outside the working tree, tee /dev/stderr, ...).
 */
static bool is_plain_reopen(const struct call *c, const struct resolved *r,
			    unsigned access, uint64_t flags)
{
	int have;

	if (r->via_pid != c->tgid || r->via_fd < 0 || r->fd < 0)
		return false;
	if (access != RULES_ACC_READ && access != RULES_ACC_WRITE)
		return false;
	have = fd_accmode(r->fd);
	if (have < 0)
		return false;
	if (access == RULES_ACC_READ)
		return !(flags & O_TRUNC) && (have == O_RDONLY || have == O_RDWR);
	/* O_TRUNC: the caller could ftruncate() its own fd; O_CREAT: the
	 * file exists, nothing is created. */
	return have == O_WRONLY || have == O_RDWR;
}

/*
 * redirect_if = exists: a path is redirected only when its redirected path
 * exists (resolved as the caller would, its last symlink not followed);
 * else it is decided by the other rules, as it is named.
 */
static void redirect_if_exists(struct sup *s, const struct call *c,
			       const struct rules_event *ev,
			       struct rules_verdict *v)
{
	char to[PATH_MAX];
	struct resolved r;
	bool there;

	if (!rules_rewrite_if_exists(v) ||
	    rules_rewrite_path(v, ev->path, to, sizeof(to)) != 0)
		return;
	resolved_init(&r);
	there = resolve_path_open(c->tid, c->tgid, AT_FDCWD, to, 0, 0,
				  &r) == 0 && r.fd >= 0;
	resolved_release(&r);
	if (!there)
		rules_match_rewritten(s->run.rules, ev, v->rule, v);
}

/*
 * Security: a redirect leads into its target and no further.  The path a
 * redirected call resolved to (symlinks followed) must be the redirect's
 * target or lie under it: a symlink the tree planted there that points
 * elsewhere (the real /tmp of a /tmp redirect, a secret) is refused.
 */
static bool redirect_beneath(const struct call *c,
			     const struct call_path *cp, const char *path)
{
	const char *to = cp->redirected ? cp->redirect :
			 cp->expected ? c->expect_path : NULL;
	size_t n = cp->redirected ? cp->redirect_base : c->expect_base;

	if (!to || n == 0 || (n == 1 && to[0] == '/'))
		return true;
	return strncmp(path, to, n) == 0 &&
	       (path[n] == '/' || path[n] == '\0');
}

void decide_path(struct sup *s, struct call *c, struct call_path *cp,
			const struct resolved *r, unsigned access)
{
	struct rules_event ev = {
		.nr = c->match_nr ? c->match_nr : c->req->data.nr,
		.exe = c->exe,
		.access = access,
		.path = r->path,
	};
	struct rules_verdict v;

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	if (c->info->family == RULES_FAM_OPEN &&
	    is_plain_reopen(c, r, access, open_flags_of(c))) {
		v = (struct rules_verdict){
			.action = RULES_ALLOW, .rule = "sysgate:reopen",
			.audit = rules_audit_level(s->run.rules) ==
				 RULES_AUDIT_ALL,
		};
	} else if (!redirect_beneath(c, cp, r->path)) {
		notify_verdict_builtin(&v, "sysgate:rewrite", EACCES);
		c->note = "the redirected path leads out of the redirect's target";
	} else if (!notify_trail_dir_guard(s, c, r, &v) &&
		   !notify_builtin_check(s, r, access, &v)) {
		/* A rewritten call: by every rule but its own rewrite. */
		if (c->rewritten)
			rules_match_rewritten(s->run.rules, &ev,
					      cp->redirected ? cp->rewrite_by :
					      c->rewrite_rule, &v);
		else {
			rules_match(s->run.rules, &ev, &v);
			redirect_if_exists(s, c, &ev, &v);
		}
	}
	/* Several checks of one path (read and write): keep the strictest. */
	if (!cp->checked ||
	    rules_verdict_rank(&v) > rules_verdict_rank(&cp->v)) {
		cp->v = v;
		cp->access = access;
	}
	cp->checked = true;
	snprintf(cp->resolved, sizeof(cp->resolved), "%s", r->path);
	cp->have_resolved = true;
}

/*
 * A create of a path that exists fails with EEXIST whatever the policy
 * says, as it would in the kernel: nothing is created, so nothing is denied
 * (mkdir -p climbs through such paths, outside the allowed tree too).
 */
void answer_exists(struct sup *s, struct call *c, struct call_path *cp,
			  const struct resolved *r)
{
	c->v = (struct rules_verdict){
		.action = RULES_ALLOW,
		.audit = rules_audit_level(s->run.rules) == RULES_AUDIT_ALL,
	};
	c->err = EEXIST;
	c->note = "the path exists";
	cp->v = c->v;
	cp->access = RULES_ACC_CREATE;
	cp->checked = true;
	snprintf(cp->resolved, sizeof(cp->resolved), "%s", r->path);
	cp->have_resolved = true;
}

/* ------------------------------------------------------------------ */
/* Copying arguments                                                   */

int copy_path(struct call *c, int arg, const char *name)
{
	struct call_path *cp = &c->paths[c->n_paths++];
	ssize_t n;

	/* A rewritten call is decided on what was copied the first time. */
	if (c->rewritten && cp->have_raw)
		return 0;
	cp->arg_name = name;
	if (arg < 0) {
		/*
		 * A call on an open file (fchmod, futimens, ...): its path is
		 * the empty one, resolved as AT_EMPTY_PATH to the file the
		 * caller's fd names (call_resolve_open()).  Nothing is read.
		 */
		cp->arg_name = "fd";
		cp->raw[0] = '\0';
		cp->raw_len = 0;
		cp->have_raw = true;
		cp->fd_form = true;
		return 0;
	}
	n = tracee_read_str(c->tid, c->req->data.args[arg], cp->raw,
			    sizeof(cp->raw));
	if (n < 0)
		return (int)n;
	cp->raw_len = (size_t)n;
	cp->have_raw = true;
	/*
	 * Security: a call restarted with a new path in its registers is
	 * decided with its own rewrite rule left out; that holds only for
	 * the path the supervisor wrote.  A thread that changed the copy
	 * below the stack gets its call denied, not let through unrewritten.
	 */
	cp->expected = c->expect_path && arg == c->expect_arg;
	if (cp->expected && strcmp(cp->raw, c->expect_path) != 0) {
		notify_verdict_builtin(&c->v, "sysgate:rewrite", EACCES);
		c->note = "the rewritten path was changed before the restarted call";
		return -EACCES;
	}
	return 0;
}

static int arg_dirfd(const struct call *c, int idx)
{
	int a = c->info->dirfd_arg[idx];

	return a < 0 ? AT_FDCWD : (int)(int32_t)c->req->data.args[a];
}

/*
 * A path that does not exist (or lies under a directory that does not):
 * does a rewrite rule redirect it?  Then that is the path's verdict.
 */
bool probe_redirect(struct sup *s, struct call *c, struct call_path *cp,
			   const char *path, unsigned acc)
{
	struct rules_event ev = {
		.nr = c->req->data.nr,
		.exe = c->exe,
		.access = acc,
		.path = path,
	};
	struct rules_verdict v;
	char to[PATH_MAX];

	if (c->rewritten)
		return false;
	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	rules_match(s->run.rules, &ev, &v);
	redirect_if_exists(s, c, &ev, &v);
	if (v.action != RULES_REWRITE ||
	    rules_rewrite_path(&v, path, to, sizeof(to)) != 0)
		return false;
	cp->v = v;
	cp->access = acc;
	cp->checked = true;
	snprintf(cp->resolved, sizeof(cp->resolved), "%s", path);
	cp->have_resolved = true;
	return true;
}

/*
 * Resolve path idx of the call as the kernel would: the caller's path, or
 * the one a redirect put in its place.  A path under a directory that does
 * not exist may still be redirected to one that does: then the path's
 * verdict is the rewrite and -EREMCHG is returned (the caller restarts the
 * call rewritten).  acc: the access class the call would have.
 */
int call_resolve_open(struct sup *s, struct call *c, int idx,
			     unsigned flags, unsigned acc, int dir_oflags,
			     struct resolved *r)
{
	struct call_path *cp = &c->paths[idx];
	int rc;

	if (cp->fd_form && !cp->redirected) {
		/*
		 * Security: the file the caller's fd names, taken with
		 * pidfd_getfd(): the very file the kernel would act on, so a
		 * thread that closes or replaces the fd meanwhile changes
		 * nothing checked.  AT_FDCWD is no fd here (the kernel answers
		 * EBADF; as a dirfd it would name the cwd), and neither is an
		 * O_PATH one (fchmod, fchown, fsetxattr and futimens refuse
		 * them: fdget()).
		 */
		if (arg_dirfd(c, idx) < 0)
			return -EBADF;
		rc = resolve_path_open(c->tid, c->tgid, arg_dirfd(c, idx), "",
				       flags | RES_EMPTY_PATH, 0, r);
		if (rc == 0 && (fcntl(r->fd, F_GETFL) & O_PATH))
			rc = -EBADF;
		return rc;
	}
	if (cp->redirected)
		/* The policy's absolute path: the caller's dirfd and
		 * openat2's scoping do not apply to it. */
		return resolve_path_open(c->tid, c->tgid, AT_FDCWD, cp->redirect,
					 flags & ~(unsigned)(RES_BENEATH | RES_IN_ROOT |
							     RES_EMPTY_PATH),
					 dir_oflags, r);
	rc = resolve_path_open(c->tid, c->tgid, arg_dirfd(c, idx), cp->raw,
			       flags, dir_oflags, r);
	if (rc == -ENOENT && r->partial && probe_redirect(s, c, cp, r->path, acc))
		return -EREMCHG;
	/*
	 * A directory on the way is missing: the call can only fail, but it
	 * is decided, as one whose last name is missing, on the path as
	 * named (canonical as far as it exists).  A denied tree then answers
	 * the same for every name in it, existing or not, and the record
	 * names the path.  r->fd is -1 and r->partial says why: no handler
	 * may create or act on anything (they answer ENOENT when allowed).
	 */
	if (rc == -ENOENT && r->partial)
		return 0;
	return rc;
}

int call_resolve(struct sup *s, struct call *c, int idx,
			unsigned flags, unsigned acc, struct resolved *r)
{
	return call_resolve_open(s, c, idx, flags & ~(unsigned)RES_OPEN, acc, 0, r);
}

/* The umask the caller's creates are made with (022 when unreadable). */
int notify_caller_umask(struct call *c)
{
	int m;

	m = resolve_task_umask(c->tid);

	return m < 0 ? 022 : m;
}
