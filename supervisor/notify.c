/* SPDX-License-Identifier: MIT */
/*
 * The trusted path: receive a notification, copy its arguments once, resolve
 * what the kernel would act on, revalidate the id, match, record, and reply
 * by emulating the call (or denying it).  A CONTINUE is sent only for calls
 * whose decision read no tracee memory, and for execve, which is checked
 * again at the exec stop (notify_exec_event).
 */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <linux/sockios.h>
#include <sys/inotify.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <utime.h>
#include <linux/limits.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "supervisor/internal.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif
#ifndef AT_STATX_SYNC_TYPE
#define AT_STATX_SYNC_TYPE 0x6000
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef OPEN_HOW_SIZE_VER0
#define OPEN_HOW_SIZE_VER0 24
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif

/* Retries when a racing process changes the file system between our check
 * and our action (an O_EXCL create that meets a new entry). */
#define NOTIFY_MAX_RETRIES 8

enum op {
	OP_OPEN, OP_MKDIR, OP_MKNOD, OP_UNLINK, OP_RENAME, OP_LINK,
	OP_SYMLINK, OP_CHMOD, OP_CHOWN, OP_TRUNCATE,
	/* Handled by handle_meta: look at, or change metadata of, a path. */
	OP_STAT, OP_STATX, OP_ACCESS, OP_READLINK, OP_CHDIR, OP_STATFS,
	OP_GETXATTR, OP_LISTXATTR, OP_SETXATTR, OP_REMOVEXATTR, OP_UTIMES,
	OP_INOTIFY, OP_FANOTIFY,
	OP_UNSUPPORTED,
};

static enum op path_op(int nr)
{
	switch (nr) {
	case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat:
		return OP_OPEN;
	case SYS_mkdir: case SYS_mkdirat:
		return OP_MKDIR;
	case SYS_mknod: case SYS_mknodat:
		return OP_MKNOD;
	case SYS_rmdir: case SYS_unlink: case SYS_unlinkat:
		return OP_UNLINK;
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
		return OP_RENAME;
	case SYS_link: case SYS_linkat:
		return OP_LINK;
	case SYS_symlink: case SYS_symlinkat:
		return OP_SYMLINK;
	case SYS_chmod: case SYS_fchmodat: case SYS_fchmodat2: case SYS_fchmod:
		return OP_CHMOD;
	case SYS_chown: case SYS_lchown: case SYS_fchownat: case SYS_fchown:
		return OP_CHOWN;
	case SYS_truncate:
		return OP_TRUNCATE;
	case SYS_stat: case SYS_lstat: case SYS_newfstatat:
		return OP_STAT;
	case SYS_statx:
		return OP_STATX;
	case SYS_access: case SYS_faccessat: case SYS_faccessat2:
		return OP_ACCESS;
	case SYS_readlink: case SYS_readlinkat:
		return OP_READLINK;
	case SYS_chdir:
		return OP_CHDIR;
	case SYS_statfs:
		return OP_STATFS;
	case SYS_getxattr: case SYS_lgetxattr:
		return OP_GETXATTR;
	case SYS_listxattr: case SYS_llistxattr:
		return OP_LISTXATTR;
	case SYS_setxattr: case SYS_lsetxattr: case SYS_fsetxattr:
		return OP_SETXATTR;
	case SYS_removexattr: case SYS_lremovexattr: case SYS_fremovexattr:
		return OP_REMOVEXATTR;
	case SYS_utime: case SYS_utimes: case SYS_futimesat: case SYS_utimensat:
		return OP_UTIMES;
	case SYS_inotify_add_watch:
		return OP_INOTIFY;
	case SYS_fanotify_mark:
		return OP_FANOTIFY;
	default:
		return OP_UNSUPPORTED;
	}
}

/* Fail closed: a call the supervisor cannot carry out faithfully. */
static int refuse_unsupported(struct sup *s, struct call *c);
/* The call to its family's handler (the syscall table's row). */
static int dispatch(struct sup *s, struct call *c, struct proc *p);

/* ------------------------------------------------------------------ */
/* Replies                                                             */

/* Notifications from one caller in a row after which choose_wake() stops
 * looking for other work, and an ADDFD keeps the loop bound (cpubind.c). */
#define WAKE_ALONE 16

/* Are the last notifications a run from one caller alone? */
static bool caller_alone(const struct sup *s)
{
	return s->notifications - s->caller_switch > WAKE_ALONE;
}

static void set_sync(struct sup *s, bool on)
{
	if (s->sync_on == on)
		return;
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		  on ? SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP : 0UL) == 0)
		s->sync_on = on;
}

void notify_wake_idle(struct sup *s)
{
	if (s->sync_wake)
		set_sync(s, true);
}

/*
 * Performance: where the caller wakes up.  With SYNC_WAKE_UP on, the reply
 * wakes the caller on the CPU the event loop runs on: right when the loop
 * sleeps next (the two take turns on one CPU, and no idle vCPU has to be
 * woken), wrong when the loop has more work waiting (another caller's
 * notification, a ptrace stop): the caller would then wait, runnable,
 * behind the loop on its CPU while the CPU it came from (another caller's,
 * now blocked) stands idle.  With two compilers of make -j2 that put both
 * on one CPU a good part of the run.  So a reply sent with work waiting
 * is an ordinary wake-up, which lets the scheduler put the caller on an
 * idle CPU.  Only the event loop looks (workers answer beside it).
 */
static void choose_wake(struct sup *s)
{
	struct pollfd p[2] = {
		{ .fd = s->listener, .events = POLLIN },
		{ .fd = s->sigfd, .events = POLLIN },
	};

	if (!s->sync_wake || !tracee_on_main_thread())
		return;
	/* One caller alone (a loop of calls): nothing else can be waiting
	 * that the look would find often enough to pay for itself. */
	if (s->sync_on && caller_alone(s))
		return;
	set_sync(s, poll(p, 2, 0) == 0);
}

int notify_send_resp(struct sup *s, uint64_t id, int64_t val, int err,
		     bool cont)
{
	struct seccomp_notif_resp resp = {
		.id = id,
		.val = cont ? 0 : val,
		/* Security: the kernel wants a negative errno; a positive one
		 * would read as a successful return (docs/PLATFORM.md 3a). */
		.error = cont ? 0 : -err,
		.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	choose_wake(s);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0) {
		/* ENOENT: the caller died or was interrupted by a fatal
		 * signal; nothing ran. */
		if (errno == ENOENT)
			return 0;
		return -errno;
	}
	return 0;
}

bool notify_id_valid(struct sup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/*
 * Install fd in the caller (not yet answering), return its number there.
 *
 * Performance: SECCOMP_ADDFD_FLAG_SEND would answer the call with the
 * install, one ioctl and one sleep of the supervisor less.  Tried on the
 * AMD VM (2026-12-03), with the caller bound as now and its mask put back
 * after: an emulated open 27-28 -> 24-27 us, find /usr/lib 509 -> 468 ms,
 * tar of /usr/share/doc 386 -> 341 ms (medians of 7, alternating).  Not
 * taken, for two reasons.  The record must be in the trail before the
 * answer (docs/INTERNALS.md, *Record*), and the fd number is only known
 * from the install:
 * the record would lose it, or a result record would follow each open.
 * And the caller would run again bound to this CPU until the mask is put
 * back, which cpubind.c now allows for a run's caller (kept bound between
 * its calls: its mask put back before it reads or sets one, a new task's
 * mask fixed at its first stop).  The first stands: its answer (no fd
 * number in the record) would change the trail's format.
 */
static int add_fd(struct sup *s, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = 0,
		.srcfd = (uint32_t)fd,
		.newfd = 0,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	int r = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	return r < 0 ? -errno : r;
}

int notify_add_fd(struct sup *s, uint64_t id, int fd, bool cloexec)
{
	return add_fd(s, id, fd, cloexec);
}

/* ------------------------------------------------------------------ */
/* Decisions                                                           */

void notify_verdict_builtin(struct rules_verdict *v, const char *rule, int err)
{
	v->action = RULES_DENY;
	v->would = RULES_ALLOW;
	v->err = err;
	v->rule = rule;
	v->audit = true;
	v->stack = false;
}

/*
 * Security: the run's own configuration (loop.c config_guard_init()):
 * the signing key is neither read nor changed, the policy, its includes
 * and the public key are not changed, and nothing in sysgate's state
 * directory (other runs' trails, keys kept there) is touched at all.
 * Files by inode, so no other name of one (a hard link, a path through
 * /proc) reaches it; the state directory by its canonical path.
 */
static bool config_check(const struct sup *s, const struct resolved *r,
			 unsigned access, struct rules_verdict *v)
{
	const unsigned change = RULES_ACC_WRITE | RULES_ACC_DELETE |
				RULES_ACC_CREATE;

	for (unsigned i = 0; r->fd >= 0 && i < s->n_guards; i++) {
		const struct sup_guard *g = &s->guards[i];

		if (r->st.st_dev != g->dev || r->st.st_ino != g->ino)
			continue;
		if (g->secret && (access & ~(unsigned)RULES_ACC_STAT)) {
			notify_verdict_builtin(v, "sysgate:sign-key", EACCES);
			return true;
		}
		if (access & change) {
			notify_verdict_builtin(v, "sysgate:config", EACCES);
			return true;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(s->state_dirs); i++) {
		const char *d = s->state_dirs[i];
		size_t n = strlen(d);

		if (n && !strncmp(r->path, d, n) &&
		    (r->path[n] == '/' ||
		     (r->path[n] == '\0' && (access & ~(unsigned)RULES_ACC_STAT)))) {
			notify_verdict_builtin(v, "sysgate:state", EACCES);
			return true;
		}
	}
	return false;
}

/*
 * Security: checks the policy cannot switch off.  /proc entries of
 * processes outside the traced tree (the supervisor above all) are out of
 * reach but for a few read-only files that ps(1) needs, the audit trail
 * cannot be written, removed or replaced by the tree, and the key that
 * signs it (--sign-key) cannot be touched at all.
 */
bool notify_builtin_check(struct sup *s, const struct resolved *r,
			  unsigned access, struct rules_verdict *v)
{
	static const char *const readable[] = {
		"stat", "status", "cmdline", "comm", "statm", "cgroup",
		"limits", "loginuid", "sessionid", "oom_score", "wchan",
		"schedstat",
	};
	const char *p = r->path;

	if (s->have_audit_ino && r->fd >= 0 && r->st.st_dev == s->audit_dev &&
	    r->st.st_ino == s->audit_ino &&
	    (access & (RULES_ACC_WRITE | RULES_ACC_DELETE | RULES_ACC_CREATE))) {
		notify_verdict_builtin(v, "sysgate:audit-trail", EACCES);
		return true;
	}
	if (config_check(s, r, access, v))
		return true;
	if (strncmp(p, "/proc/", 6) == 0 && p[6] >= '1' && p[6] <= '9') {
		char *end;
		long pid = strtol(p + 6, &end, 10);
		const char *rest = *end == '/' ? end + 1 : end;
		size_t rlen = strcspn(rest, "/");

		if (*end != '/' && *end != '\0')
			return false;
		if (pid == s->self) {
			notify_verdict_builtin(v, "sysgate:supervisor", EACCES);
			return true;
		}
		if (procs_find((pid_t)pid))
			return false;
		/* /proc/PID/task/TID/X is X of a thread: the same list. */
		if (!strncmp(rest, "task/", 5) && rest[5] >= '0' && rest[5] <= '9') {
			const char *t = rest + 5;

			while (*t >= '0' && *t <= '9')
				t++;
			if (*t == '\0')
				rest = t;	/* the thread's directory */
			else if (*t == '/')
				rest = t + 1;
			else
				rest = "-";
			rlen = strlen(rest);
		}
		if (access & (RULES_ACC_READ | RULES_ACC_STAT)) {
			if (rlen == 0 || !strcmp(rest, "task"))
				return false;	/* the directories, for ps */
			for (size_t i = 0; i < ARRAY_SIZE(readable); i++)
				if (!strcmp(rest, readable[i]))
					return false;
		}
		notify_verdict_builtin(v, "sysgate:outside-tree", EACCES);
		return true;
	}
	return false;
}

/*
 * Security: the trail at the path sysgate prints is the one it writes.
 * Its file is guarded above; a directory above it that the tree renamed
 * (or exchanged, or removed) would let it put a forged trail at that
 * path, so no rename or removal may take one.  What is created in them,
 * and their attributes, are left to the policy.
 */
bool notify_trail_dir_guard(const struct sup *s, const struct call *c,
			    const struct resolved *r, struct rules_verdict *v)
{
	enum op op = path_op(c->req->data.nr);

	if ((op != OP_RENAME && op != OP_UNLINK) || r->fd < 0 ||
	    !S_ISDIR(r->st.st_mode))
		return false;
	for (unsigned i = 0; i < s->n_trail_dirs; i++) {
		if (r->st.st_dev == s->trail_dirs[i].dev &&
		    r->st.st_ino == s->trail_dirs[i].ino) {
			notify_verdict_builtin(v, s->trail_dirs[i].rule, EACCES);
			return true;
		}
	}
	return false;
}

/* A dup of the caller's fd arg (from its own fd table), or -errno. */
static int caller_fd(const struct call *c, uint64_t arg)
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
		rules_match_rewritten(s->rules, ev, v->rule, v);
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

static void decide_path(struct sup *s, struct call *c, struct call_path *cp,
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
	if (path_op(c->req->data.nr) == OP_OPEN &&
	    is_plain_reopen(c, r, access, open_flags_of(c))) {
		v = (struct rules_verdict){
			.action = RULES_ALLOW, .rule = "sysgate:reopen",
			.audit = rules_audit_level(s->rules) == RULES_AUDIT_ALL,
		};
	} else if (!redirect_beneath(c, cp, r->path)) {
		notify_verdict_builtin(&v, "sysgate:rewrite", EACCES);
		c->note = "the redirected path leads out of the redirect's target";
	} else if (!notify_trail_dir_guard(s, c, r, &v) &&
		   !notify_builtin_check(s, r, access, &v)) {
		/* A rewritten call: by every rule but its own rewrite. */
		if (c->rewritten)
			rules_match_rewritten(s->rules, &ev,
					      cp->redirected ? cp->rewrite_by :
					      c->rewrite_rule, &v);
		else {
			rules_match(s->rules, &ev, &v);
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
static void answer_exists(struct sup *s, struct call *c, struct call_path *cp,
			  const struct resolved *r)
{
	c->v = (struct rules_verdict){
		.action = RULES_ALLOW,
		.audit = rules_audit_level(s->rules) == RULES_AUDIT_ALL,
	};
	c->err = EEXIST;
	c->note = "the path exists";
	cp->v = c->v;
	cp->access = RULES_ACC_CREATE;
	cp->checked = true;
	snprintf(cp->resolved, sizeof(cp->resolved), "%s", r->path);
	cp->have_resolved = true;
}

/* The deciding verdict of the call: the strictest of its paths. */
static void decide_call(struct call *c)
{
	bool first = true;

	for (unsigned i = 0; i < c->n_paths; i++) {
		if (!c->paths[i].checked)
			continue;
		if (first || rules_verdict_rank(&c->paths[i].v) >
			     rules_verdict_rank(&c->v))
			c->v = c->paths[i].v;
		first = false;
	}
}

static void kill_caller(struct call *c)
{
	/* Security: the call under review never runs: we never reply
	 * CONTINUE, and SIGKILL takes the process before our error reply
	 * can be acted upon. */
	kill(c->tgid, SIGKILL);
}

/*
 * Record and reply.  The record goes to the trail first: a call that runs
 * is never missing from it.  If the trail cannot be written, the call is
 * denied and sysgate fails closed.
 *
 * Performance: answering a call that does not run (a denial, a missing
 * name) before its record, which the trail's rule would allow, gains nothing:
 * tried on the AMD VM (2026-12-04), a denied open 14.8 -> 14.8 us, an
 * open of a missing file 15.3 -> 15.6 us (medians of 5, alternating).
 * The reply wakes the caller on this CPU (SYNC_WAKE_UP), where it waits
 * for the record all the same.
 */
static pthread_mutex_t finish_lock = PTHREAD_MUTEX_INITIALIZER;

int notify_finish(struct sup *s, struct call *c, bool cont)
{
	uint64_t seq = 0;
	int r;

	if (c->v.action == RULES_KILL)
		kill_caller(c);
	if (c->err == 0 && !cont && !c->have_result && c->v.action != RULES_ALLOW)
		c->err = c->v.err ? c->v.err : EPERM;
	/* Blocking calls finish on their own threads: one record at a time. */
	pthread_mutex_lock(&finish_lock);
	if (s->failed)
		r = -EIO;
	else if (c->pre_seq)
		r = record_result(s, c);
	else
		r = record_call(s, c, &seq);
	if (r < 0) {
		sup_fail(s, "cannot write the audit trail: %s", strerror(-r));
		pthread_mutex_unlock(&finish_lock);
		return notify_send_resp(s, c->req->id, 0, EPERM, false);
	}
	if (c->v.action != RULES_ALLOW)
		record_note_denial(s, c, c->pre_seq && c->pre_seq != UINT64_MAX ?
				   c->pre_seq : seq);
	if (!c->pre_seq)
		s->counts[call_action(c)]++;
	pthread_mutex_unlock(&finish_lock);
	if (cont)
		return notify_send_resp(s, c->req->id, 0, 0, true);
	return notify_send_resp(s, c->req->id, c->result, c->err, false);
}

/*
 * Security: a call that changes something (creates, removes, renames,
 * truncates, binds, connects) is recorded before the supervisor makes the
 * change, so that a supervisor killed in between leaves no change without
 * its record.  Its result follows in a syscall.result record.  Returns 0,
 * or -EIO when the trail cannot be written: then nothing may be done.
 */
int notify_record_before_change(struct sup *s, struct call *c)
{
	uint64_t seq = 0;
	int r;

	pthread_mutex_lock(&finish_lock);
	if (s->failed) {
		pthread_mutex_unlock(&finish_lock);
		return -EIO;
	}
	c->pending = true;
	r = record_call(s, c, &seq);
	c->pending = false;
	if (r < 0) {
		sup_fail(s, "cannot write the audit trail: %s", strerror(-r));
		pthread_mutex_unlock(&finish_lock);
		return -EIO;
	}
	s->counts[call_action(c)]++;
	/* Only a recorded decision gets a result record, which refers to
	 * the seq this record's commit gave it (not the trail's last seq,
	 * which is the same only while no other thread records meanwhile:
	 * today they all take finish_lock or are this thread). */
	c->pre_seq = c->v.audit ? seq : UINT64_MAX;
	pthread_mutex_unlock(&finish_lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Copying arguments                                                   */

static int copy_path(struct call *c, int arg, const char *name)
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
static bool probe_redirect(struct sup *s, struct call *c, struct call_path *cp,
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
	rules_match(s->rules, &ev, &v);
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
static int call_resolve_open(struct sup *s, struct call *c, int idx,
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

static int call_resolve(struct sup *s, struct call *c, int idx,
			unsigned flags, unsigned acc, struct resolved *r)
{
	return call_resolve_open(s, c, idx, flags & ~(unsigned)RES_OPEN, acc, 0, r);
}

/* --user: the generation of the credentials kept per task (below). */
static uint64_t creds_gen = 1;
/* --user: the event loop's own credentials, read on its thread before it
 * first takes a caller's (so before any job that runs as a caller): what
 * it and the workers give back after a caller's call. */
static struct creds loop_own;
static bool loop_have_own;

/*
 * action = rewrite: carry the call out as the rule rewrites it.  The paths
 * whose rule redirects them are replaced, the arguments changed, and the
 * call is decided again from the start on what it now names (the caller's
 * memory is not read again).  Called by a handler once c->v is a rewrite,
 * with nothing done and nothing recorded yet.
 */
static int rewrite_restart(struct sup *s, struct call *c)
{
	unsigned n = c->n_paths;

	decide_call(c);	/* the strictest verdict of the paths seen */
	for (unsigned i = 0; i < n; i++) {
		struct call_path *cp = &c->paths[i];
		int rc;

		if (!cp->checked || cp->v.action != RULES_REWRITE)
			continue;
		rc = rules_rewrite_path(&cp->v, cp->resolved, cp->redirect,
					sizeof(cp->redirect));
		if (rc == -ENOENT)
			continue;	/* the rule changes arguments only */
		if (rc < 0) {
			c->err = -rc;
			c->note = "the redirected path is too long";
			return notify_finish(s, c, false);
		}
		snprintf(cp->from, sizeof(cp->from), "%s", cp->resolved);
		cp->redirected = true;
		cp->rewrite_by = cp->v.rule;
		cp->redirect_base = strlen(rules_rewrite_redirect(&cp->v));
	}
	memcpy(c->orig_args, c->req->data.args, sizeof(c->orig_args));
	c->rw_req = *c->req;
	rules_rewrite_args(&c->v, (uint64_t *)c->rw_req.data.args);
	c->req = &c->rw_req;
	c->rewritten = true;
	c->rewrite_rule = c->v.rule;
	c->v = (struct rules_verdict){
		.action = RULES_ALLOW,
		.audit = rules_audit_level(s->rules) == RULES_AUDIT_ALL,
	};
	c->err = 0;
	c->note = NULL;
	for (unsigned i = 0; i < n; i++) {
		c->paths[i].checked = false;
		c->paths[i].have_resolved = false;
	}
	c->n_paths = 0;
	return dispatch(s, c, procs_find(c->tid));
}

/* ------------------------------------------------------------------ */
/* The open family                                                     */

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

int notify_caller_umask(struct call *c)
{
	int m;

	m = resolve_task_umask(c->tid);

	return m < 0 ? 022 : m;
}

static int reopen_fd(int fd, uint64_t flags)
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

void call_job_init(struct call_job *j, struct sup *s, const struct call *c)
{
	j->s = s;
	j->c = *c;
	/* The process may exec or exit meanwhile: keep our own copies. */
	snprintf(j->exe, sizeof(j->exe), "%s", c->exe ? c->exe : "?");
	j->c.exe = j->exe;
	j->req = *c->req;
	j->c.req = &j->req;
	if (c->creds) {
		j->creds = *c->creds;
		j->have_creds = true;
	}
	j->c.creds = NULL;
	if (c->stack) {
		j->stack = *c->stack;
		j->c.stack = &j->stack;
	}
}

/*
 * The worker threads that run call jobs.  A job used to get a thread of
 * its own; creating one and letting it exit cost ~28 us of a ~85 us
 * connect here (bench row (e)), more than the rest of the supervisor's
 * work on the call.  A worker that finishes a job waits for the next one
 * instead (up to WORKERS_IDLE_MAX of them wait; more exit), and a job
 * goes to a waiting worker when there is one, a new worker otherwise, so
 * that a job that blocks (a remote connect, a FIFO nobody opens) never
 * holds up another.  The waiting worker is bound to the CPU the event
 * loop runs on when it is handed the job: it then runs as soon as the
 * loop waits, instead of waking an idle CPU (tens of us in a VM, as for
 * ADDFD: cpubind.c).  It is the supervisor's own thread, so the binding
 * touches nothing of the traced tree.
 *
 * Security: a job runs with the caller's credentials from call_job_enter
 * on (all of them, creds_switch(), on the worker thread only).  A worker
 * keeps them after the job, as the event loop keeps a caller's between
 * calls (notify_creds_release()): the next job of the same caller
 * switches nothing (a switch there and back is about 30 us here), and an
 * idle worker holds no more than that caller's rights.  A worker whose
 * switch failed half-way exits instead of taking another job, and its
 * credentials go with it.
 */
#define WORKERS_IDLE_MAX 4

struct worker {
	/* Posted once per job handed to it.  Posted after workers_lock is
	 * let go: a condition variable signalled under the lock woke the
	 * worker only for it to sleep again on the lock (two wake-ups per
	 * job).  The worker may end and free itself as soon as its
	 * sem_wait returns, which glibc's sem_post allows (since 2.21). */
	sem_t wake;
	struct call_job *job;	/* handed to it, under workers_lock */
	void *(*fn)(void *);
	pid_t tid;
	int cpu;		/* the CPU it is bound to, -1: none */
	struct worker *next;	/* in the idle list */
};

static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker *workers_idle;
static unsigned n_workers_idle;

/* The caller's credentials a thread running jobs holds (w_holding), kept
 * after its job; w_unsure: a switch failed half-way, the thread holds
 * something in between. */
static __thread struct creds w_held;
static __thread bool w_holding, w_unsure;

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&workers_lock);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_unlock(&workers_lock);
	for (;;) {
		struct call_job *j;
		void *(*fn)(void *);

		while (sem_wait(&w->wake) < 0)
			;	/* EINTR */
		/* Handed over under workers_lock before the post, which
		 * orders it before this (sem_post/sem_wait synchronize
		 * memory); nobody else touches an idle worker's job. */
		j = w->job;
		fn = w->fn;
		w->job = NULL;
		fn(j);		/* frees j */
		pthread_mutex_lock(&workers_lock);
		if (w_unsure || n_workers_idle >= WORKERS_IDLE_MAX)
			break;
		w->next = workers_idle;
		workers_idle = w;
		n_workers_idle++;
		pthread_mutex_unlock(&workers_lock);
	}
	pthread_mutex_unlock(&workers_lock);
	sem_destroy(&w->wake);
	free(w);
	return NULL;
}

/* Bind an idle worker to the CPU this thread runs on (workers_lock held). */
static void worker_bind_here(struct worker *w)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == w->cpu)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	w->cpu = sched_setaffinity(w->tid, sizeof(one), &one) == 0 ? cpu : -1;
}

int call_job_start(struct call_job *j, void *(*fn)(void *))
{
	pthread_attr_t at;
	pthread_t t;
	struct worker *w;
	int rc;

	pthread_mutex_lock(&workers_lock);
	w = workers_idle;
	if (w) {
		workers_idle = w->next;
		n_workers_idle--;
		w->job = j;
		w->fn = fn;
		worker_bind_here(w);
		pthread_mutex_unlock(&workers_lock);
		sem_post(&w->wake);
		return 0;
	}
	pthread_mutex_unlock(&workers_lock);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* Its first job is handed over here: one post already. */
	if (sem_init(&w->wake, 0, 1) != 0) {
		free(w);
		return -ENOMEM;
	}
	w->job = j;
	w->fn = fn;
	w->cpu = -1;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &at, worker_main, w);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		sem_destroy(&w->wake);
		free(w);
	}
	return -rc;
}

int call_job_enter(struct call_job *j)
{
	if (!j->have_creds)
		return 0;
	if (w_holding && creds_same(&w_held, &j->creds))
		return 0;
	/* Security: fail closed; a worker left unsure exits after the
	 * job (worker_main). */
	w_holding = false;
	if (!loop_have_own || creds_switch(&j->creds, &loop_own) < 0) {
		w_unsure = true;
		return -EPERM;
	}
	w_held = j->creds;
	w_holding = true;
	return 0;
}

void call_job_leave(struct call_job *j)
{
	/* The credentials stay: see w_held. */
	(void)j;
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
		int remote = add_fd(j->job.s, j->job.req.id, nf,
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

static int handle_open(struct sup *s, struct call *c)
{
	struct open_args o = { 0 };
	struct resolved r;
	int dir_oflags = 0;
	int rc;

	resolved_init(&r);
	rc = copy_path(c, c->info->path_arg[0], "path");
	if (rc == 0)
		rc = get_open_args(c, &o);
	c->open_flags = o.flags;
	if (rc < 0) {
		c->err = -rc;
		goto reply_err;
	}
	/* A directory opened read-only: the resolver may open it with the
	 * call's flags at once (see jump_whole() in resolve.c). */
	if ((o.flags & O_DIRECTORY) && (o.flags & O_ACCMODE) == O_RDONLY &&
	    (o.flags & O_TMPFILE) != O_TMPFILE &&
	    !(o.flags & (O_CREAT | O_TRUNC | O_PATH)))
		dir_oflags = (int)o.flags;
	for (int attempt = 0; attempt < NOTIFY_MAX_RETRIES; attempt++) {
		struct call_path *cp = &c->paths[0];
		unsigned second;
		unsigned acc;
		int nf;
		bool exists;
		bool id_checked;

		resolved_release(&r);
		cp->checked = false;
		rc = call_resolve_open(s, c, 0, resolve_flags_for(&o) | RES_OPEN,
				       (o.flags & O_CREAT) ? RULES_ACC_CREATE :
				       open_access(o.flags, true, &second),
				       dir_oflags, &r);
		/*
		 * Is the call still waiting (the caller not killed meanwhile)?
		 * An open of an existing file that creates and truncates
		 * nothing may ask later: if it is allowed, the ADDFD that
		 * gives the caller its fd fails (ENOENT) for a call no longer
		 * waiting, and nothing is recorded; everything else asks now.
		 * The pid read from cannot have been reused: the caller is
		 * traced, and only this thread reaps it.
		 */
		id_checked = !(rc == 0 && r.fd >= 0 &&
			       !(o.flags & (O_CREAT | O_TRUNC | O_PATH)));
		if (id_checked && !notify_id_valid(s, c->req->id))
			goto gone;
		if (rc == -EREMCHG) {
			resolved_release(&r);
			return rewrite_restart(s, c);
		}
		if (rc < 0) {
			c->err = -rc;
			goto reply_err;
		}
		exists = r.fd >= 0;
		if (exists && (o.flags & O_CREAT) && (o.flags & O_EXCL) &&
		    (o.flags & O_TMPFILE) != O_TMPFILE) {
			/* Unless a redirect sends the create elsewhere. */
			decide_path(s, c, cp, &r, RULES_ACC_CREATE);
			if (!c->rewritten && cp->v.action == RULES_REWRITE) {
				resolved_release(&r);
				return rewrite_restart(s, c);
			}
			answer_exists(s, c, cp, &r);
			break;
		}
		if ((o.flags & O_TMPFILE) == O_TMPFILE) {
			if (!exists) {
				c->err = ENOENT;
				goto reply_err;
			}
			decide_path(s, c, cp, &r, RULES_ACC_CREATE);
		} else {
			acc = open_access(o.flags, exists, &second);
			decide_path(s, c, cp, &r, acc);
			if (second)
				decide_path(s, c, cp, &r, second);
		}
		decide_call(c);
		if (!id_checked && (c->v.action != RULES_ALLOW || c->v.stack ||
				    S_ISFIFO(r.st.st_mode))) {
			if (!notify_id_valid(s, c->req->id))
				goto gone;
			id_checked = true;
		}
		if (c->v.stack && stack_request(s, c) > 0)
			goto gone;
		if (c->v.action == RULES_REWRITE) {
			resolved_release(&r);
			return rewrite_restart(s, c);
		}
		if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
			goto gone;
		if (c->v.action != RULES_ALLOW)
			break;
		if (!exists && (r.partial || !(o.flags & O_CREAT) ||
				(o.flags & O_PATH))) {
			c->err = ENOENT;
			break;
		}
		if ((o.flags & O_PATH) && c->rewritten && cp->redirected) {
			/* The kernel opens it: give it the new path. */
			struct proc *p = procs_find(c->tid);

			if (c->req->data.nr != SYS_openat2 && p &&
			    regs_rewrite(s, c, p, (const uint64_t *)c->req->data.args,
					 c->info->path_arg[0], cp->redirect,
					 cp->from, cp->redirect_base) == 0) {
				resolved_release(&r);
				return 0;
			}
			c->err = EACCES;
			c->note = "O_PATH open of a redirected path: the path could not be rewritten";
			break;
		}
		if (o.flags & O_PATH) {
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
			resolved_release(&r);
			c->note = "O_PATH: opened by the kernel";
			return notify_finish(s, c, true);
		}
		if (!exists && r.trailing_slash) {
			c->err = EISDIR;
			break;
		}
		if (exists && S_ISFIFO(r.st.st_mode) && !(o.flags & O_NONBLOCK) &&
		    !(o.flags & O_PATH)) {
			c->emulated = true;
			if (open_fifo_async(s, c, &o, &r) == 0) {
				resolved_release(&r);
				return 0;
			}
		}
		if ((!exists && (o.flags & O_CREAT)) || (exists && (o.flags & O_TRUNC))) {
			if (notify_record_before_change(s, c) < 0)
				break;
		}
		/* A directory the resolver opened is the one checked. */
		nf = r.opened ? steal_fd(&r.fd) : do_open(c, &o, &r);
		if (nf == -EAGAIN) {
			/* Something appeared where we were to create: the
			 * recorded decision gets its outcome, and the call is
			 * decided again on what is there now. */
			if (c->pre_seq) {
				c->err = EAGAIN;
				c->note = "raced: decided again";
				pthread_mutex_lock(&finish_lock);
				if (record_result(s, c) < 0)
					sup_fail(s, "cannot write the audit trail");
				pthread_mutex_unlock(&finish_lock);
				c->pre_seq = 0;
				c->err = 0;
				c->note = NULL;
			}
			continue;
		}
		c->emulated = true;
		if (nf < 0) {
			c->err = -nf;
			break;
		}
		struct cpubind bind;

		/* The caller on this CPU for the ADDFD's wake-up (cpubind.c);
		 * its mask is back before the reply, but in a run of calls
		 * from it alone. */
		cpubind_enter(c->tid, &bind, caller_alone(s));
		int remote = add_fd(s, c->req->id, nf, o.flags & O_CLOEXEC);
		int unbound = cpubind_leave(&bind);

		if (unbound < 0)
			fprintf(stderr, "sysgate: warning: the CPU mask of task %d could not be put back (%s); it stays on one CPU\n",
				(int)c->tid, strerror(-unbound));
		close(nf);
		if (remote < 0) {
			if (remote == -ENOENT)
				goto gone;
			c->err = -remote;
			if (remote == -EMFILE) {
				uint64_t lim = 0;

				rules_limit(s->rules, RULES_LIMIT_OPEN_FILES, &lim);
				if (lim && record_limit(s, procs_find(c->tid),
							RULES_LIMIT_OPEN_FILES, lim,
							"open refused with EMFILE") < 0)
					sup_fail(s, "cannot write the audit trail");
			}
			break;
		}
		c->result = remote;
		c->have_result = true;
		break;
	}
	if (!c->err && !c->have_result && c->v.action == RULES_ALLOW)
		c->err = EAGAIN;	/* the race did not settle */
	resolved_release(&r);
	return notify_finish(s, c, false);

reply_err:
	resolved_release(&r);
	return notify_finish(s, c, false);
gone:
	resolved_release(&r);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Calls that change the file system, done by the supervisor            */

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

static int handle_change(struct sup *s, struct call *c, enum op op)
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


/* ------------------------------------------------------------------ */
/* Looking at a path, or changing its metadata                         */

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

static int handle_meta(struct sup *s, struct call *c, enum op op)
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

/* ------------------------------------------------------------------ */
/* execve / execveat                                                    */

enum exec_format { EXEC_UNKNOWN, EXEC_ELF, EXEC_SCRIPT, EXEC_NONE };

/* True when binfmt_misc may run formats other than ELF and scripts. */
static bool binfmt_misc_active(void)
{
	DIR *d = opendir("/proc/sys/fs/binfmt_misc");
	struct dirent *e;
	bool any = false;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "register") &&
		    strcmp(e->d_name, "status"))
			any = true;
	closedir(d);
	return any;
}

/* What the kernel will make of the file: ELF, a #! script, or nothing it
 * can run (ENOEXEC).  UNKNOWN when we cannot read it (execute-only). */
static enum exec_format exec_format(int fd)
{
	union {
		unsigned char b[64];
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;
	AUTO_CLOSE int rf = reopen_fd(fd, O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (rf < 0)
		return EXEC_UNKNOWN;
	memset(&h, 0, sizeof(h));
	n = pread(rf, h.b, sizeof(h.b), 0);
	if (n >= 2 && h.b[0] == '#' && h.b[1] == '!')
		return EXEC_SCRIPT;
	if (n >= SELFMAG && !memcmp(h.b, ELFMAG, SELFMAG)) {
		/* The checks the kernel's ELF loader makes before anything
		 * else (load_elf_binary): class, machine, type, headers. */
		if (n >= (ssize_t)sizeof(Elf64_Ehdr) &&
		    h.b[EI_CLASS] == ELFCLASS64 && h.e64.e_machine == EM_X86_64 &&
		    (h.e64.e_type == ET_EXEC || h.e64.e_type == ET_DYN) &&
		    h.e64.e_phentsize == sizeof(Elf64_Phdr) &&
		    h.e64.e_phnum >= 1 && h.e64.e_phnum <= 65536 / sizeof(Elf64_Phdr))
			return EXEC_ELF;
		if (n >= (ssize_t)sizeof(Elf32_Ehdr) &&
		    h.b[EI_CLASS] == ELFCLASS32 && h.e32.e_machine == EM_386 &&
		    (h.e32.e_type == ET_EXEC || h.e32.e_type == ET_DYN) &&
		    h.e32.e_phentsize == sizeof(Elf32_Phdr) &&
		    h.e32.e_phnum >= 1 && h.e32.e_phnum <= 65536 / sizeof(Elf32_Phdr))
			return EXEC_ELF;
	}
	if (n < 0 || binfmt_misc_active())
		return EXEC_UNKNOWN;
	return EXEC_NONE;
}

static int handle_exec(struct sup *s, struct call *c, struct proc *p)
{
	const __u64 *a = c->req->data.args;
	bool at = c->req->data.nr == SYS_execveat;
	int dirfd = at ? (int)(int32_t)a[0] : AT_FDCWD;
	uint64_t flags = at ? a[4] : 0;
	unsigned resf = RES_FOLLOW;
	struct resolved r;
	int rc;

	resolved_init(&r);
	rc = copy_path(c, c->info->path_arg[0], "path");
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	if (flags & ~(uint64_t)(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		c->err = EINVAL;
		goto out;
	}
	if (flags & AT_SYMLINK_NOFOLLOW)
		resf = 0;
	if (flags & AT_EMPTY_PATH)
		resf |= RES_EMPTY_PATH;
	/* The exec checks use the object (fd, stat, canonical path) only. */
	resf |= RES_OBJECT;
	rc = resolve_path(c->tid, c->tgid, dirfd, c->paths[0].raw, resf, &r);
	if (!notify_id_valid(s, c->req->id))
		goto gone;
	if (((rc == -ENOENT && r.partial) || (rc == 0 && r.fd < 0)) &&
	    probe_redirect(s, c, &c->paths[0], r.path, RULES_ACC_EXEC)) {
		decide_call(c);
		goto rewrite;
	}
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	if (r.fd < 0) {
		/* Nothing to run: ENOENT as the kernel answers, no policy
		 * decision (execvp and env try each PATH entry in turn). */
		c->err = ENOENT;
		c->note = "no such file";
		goto out;
	}
	decide_path(s, c, &c->paths[0], &r, RULES_ACC_EXEC);
	decide_call(c);
	if (c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_REWRITE)
		goto rewrite;
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;
	if (c->v.action != RULES_ALLOW)
		goto out;
	if (S_ISLNK(r.st.st_mode)) {
		c->err = ELOOP;
		goto out;
	}
	if (S_ISDIR(r.st.st_mode) || !S_ISREG(r.st.st_mode)) {
		c->err = EACCES;
		goto out;
	}
	/* Not executable for the caller (our credentials are the caller's):
	 * answer as the kernel would, so that the trail has the result. */
	if (faccessat(r.fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0 &&
	    errno == EACCES) {
		c->err = EACCES;
		goto out;
	}
	if (!p->exec) {
		p->exec = calloc(1, sizeof(*p->exec));
		if (!p->exec) {
			c->err = ENOMEM;
			goto out;
		}
	}
	/*
	 * Security: execve cannot be emulated, so the kernel will read the
	 * path again after our CONTINUE.  Remember exactly what was checked;
	 * the exec stop compares it with what was loaded (AT_EXECFN and the
	 * inode) and kills the process on any difference.
	 */
	struct exec_check *ec = p->exec;

	ec->pending = true;
	if (dirfd != AT_FDCWD && c->paths[0].raw[0] != '/') {
		if (c->paths[0].raw[0] == '\0')
			snprintf(ec->raw, sizeof(ec->raw), "/dev/fd/%d", dirfd);
		else
			snprintf(ec->raw, sizeof(ec->raw), "/dev/fd/%d/%s", dirfd,
				 c->paths[0].raw);
	} else {
		snprintf(ec->raw, sizeof(ec->raw), "%s", c->paths[0].raw);
	}
	ec->dev = r.st.st_dev;
	ec->ino = r.st.st_ino;
	enum exec_format fmt = exec_format(r.fd);

	if (fmt == EXEC_NONE) {
		/* The kernel has no loader for it: answer ENOEXEC as it
		 * would, so the trail has the result (execvp then tries sh). */
		ec->pending = false;
		c->err = ENOEXEC;
		goto out;
	}
	ec->script = fmt == EXEC_SCRIPT;
	snprintf(ec->path, sizeof(ec->path), "%s", r.path);
	resolved_release(&r);
	return notify_finish(s, c, true);
rewrite: {
	/*
	 * An exec is run by the kernel: the caller restarts it with the
	 * redirected path in its registers, and it is checked again as any
	 * exec (here, and at the exec stop on what was loaded).
	 */
	char to[PATH_MAX];

	resolved_release(&r);
	memcpy(c->orig_args, a, sizeof(c->orig_args));
	c->rewrite_rule = c->v.rule;
	if (rules_rewrite_path(&c->v, c->paths[0].resolved, to, sizeof(to)) == 0 &&
	    regs_rewrite(s, c, p, c->orig_args, c->info->path_arg[0], to,
			 c->paths[0].resolved,
			 strlen(rules_rewrite_redirect(&c->v))) == 0)
		return 0;
	c->err = EACCES;
	c->note = "exec redirect: the path could not be rewritten";
	goto out;
}
out:
	if (c->tgid == s->child && !s->child_execd && c->err) {
		s->first_exec_err = c->err;
		s->first_exec_rule = c->v.rule;
	}
	resolved_release(&r);
	return notify_finish(s, c, false);
gone:
	resolved_release(&r);
	return 0;
}

void notify_exec_event(struct sup *s, struct proc *p, pid_t former_tid)
{
	struct proc *fp = procs_find(former_tid);
	struct exec_check *ec = fp ? fp->exec : NULL;
	/* The event loop's thread only: one image at a time. */
	static struct exec_image img;
	char exe[PATH_MAX] = "";
	char link[64];
	struct stat st;
	bool ok = true;
	const char *why = NULL;

	/* --user: an exec may change the credentials kept for p. */
	creds_gen++;
	if (tracee_exe(p->tid, exe, sizeof(exe)) < 0)
		snprintf(exe, sizeof(exe), "?");
	tracee_exec_image(p->tid, &img);
	if (ec && ec->pending) {
		ec->pending = false;
		snprintf(link, sizeof(link), "/proc/%d/exe", p->tid);
		if (!img.have_execfn || strcmp(img.execfn, ec->raw) != 0) {
			ok = false;
			why = "the path changed between check and exec";
		} else if (stat(link, &st) < 0) {
			ok = false;
			why = "cannot read the executable";
		} else if (st.st_dev != ec->dev || st.st_ino != ec->ino) {
			if (!ec->script) {
				ok = false;
				why = "the file changed between check and exec";
			} else {
				/* A script: the interpreter is what runs; it
				 * must be allowed to run as well. */
				struct rules_event ev = {
					.nr = SYS_execve, .exe = p->exe,
					.access = RULES_ACC_EXEC, .path = exe,
				};
				struct rules_verdict v;

				rules_match(s->rules, &ev, &v);
				if (v.action != RULES_ALLOW) {
					ok = false;
					why = "the script's interpreter is not allowed to run";
				}
			}
		}
	}
	if (!ok) {
		struct stat gone;

		/* A task with no memory any more (/proc/PID/exe: ENOENT) is
		 * ending, killed during its execve: the program never runs,
		 * and its exit follows.  Nothing to kill or record. */
		if (stat(link, &gone) < 0 && errno == ENOENT)
			return;
		/* Security: the checked and the loaded program differ (a
		 * racing thread swapped the path or the file): kill before
		 * the new program runs a single instruction. */
		kill(p->tgid, SIGKILL);
		if (record_exec_violation(s, p, why, exe) < 0)
			sup_fail(s, "cannot write the audit trail");
		s->counts[RULES_KILL]++;
		return;
	}
	procs_set_exe(p, exe);
	p->leader_exec = true;
	if (p->tgid == s->child)
		s->child_execd = true;
	if (record_exec(s, p, exe, &img) < 0)
		sup_fail(s, "cannot write the audit trail");
}

/* ------------------------------------------------------------------ */
/* Calls decided on registers only                                      */

struct pgrp_scan {
	pid_t pgrp;
	bool found;
};

static void pgrp_member(struct proc *p, void *arg)
{
	struct pgrp_scan *ps = arg;

	if (!ps->found && p->tid == p->tgid && !p->exited &&
	    tracee_pgrp(p->tgid) == ps->pgrp)
		ps->found = true;
}

/* A process group of the tree: the tree's own, or one a tree process
 * belongs to (joining groups outside the tree is refused below). */
static bool tree_pgrp(struct sup *s, pid_t pg)
{
	struct pgrp_scan ps = { pg, false };

	if (pg == s->child || procs_find(pg))
		return true;
	procs_each(pgrp_member, &ps);
	return ps.found;
}

static bool in_tree(pid_t pid)
{
	struct proc *p = procs_find(pid);

	return p && !p->exited;
}

/*
 * Security: signals reach only processes of the traced tree, and a tree
 * process cannot join a process group outside it (from where kill(0, ...)
 * would reach the supervisor or the user's shell).  Returns true and sets
 * a deny verdict when the call aims outside.  The targets are pids of
 * tasks we trace and have not reaped, so they cannot be reused before
 * the call runs (the loop reaps after this reply).
 */
enum target { TARGET_TREE, TARGET_GONE, TARGET_ZOMBIE, TARGET_OUTSIDE };

/*
 * Where a signal to pid would go.  A task of the tree we have reaped may
 * still be a zombie that its parent (in the tree) has not waited for:
 * signalling it does nothing and succeeds.  A pid that names nothing gets
 * ESRCH from us, not a continue: it could name an outsider by the time
 * the kernel acts.
 */
static enum target signal_target(pid_t pid)
{
	char path[64], buf[512];
	AUTO_CLOSE int fd = -1;
	ssize_t n;
	char state = 0, *p;
	int ppid = 0;

	if (in_tree(pid))
		return TARGET_TREE;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? TARGET_GONE : TARGET_OUTSIDE;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return TARGET_GONE;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2)
		return TARGET_OUTSIDE;
	if (state == 'Z' && procs_is_tree_tgid(ppid))
		return TARGET_ZOMBIE;
	return TARGET_OUTSIDE;
}

/* Returns 0 to go on deciding, 1 when the call is denied (verdict set),
 * 2 when it is answered here (err or result set). */
static int outside_tree(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	pid_t pid = (pid_t)(int32_t)a[0];
	pid_t target = 0;
	bool ok = true, is_signal = true;

	switch (c->req->data.nr) {
	case SYS_kill:
		if (pid > 0)
			target = pid;
		else if (pid == 0)
			ok = true;	/* the caller's own group: a tree group */
		else if (pid == -1)
			ok = false;	/* every process the caller may signal */
		else
			ok = tree_pgrp(s, -pid);
		break;
	case SYS_tkill:
	case SYS_rt_sigqueueinfo:
		target = pid;
		break;
	case SYS_tgkill:
	case SYS_rt_tgsigqueueinfo:
		target = (pid_t)(int32_t)a[1];
		break;
	/* process_madvise: advice on the memory of the process a pidfd
	 * names (root's CAP_SYS_NICE can page out any process);
	 * process_mrelease: its memory reaped while it is being killed;
	 * pidfd_getfd: one of its files taken. */
	case SYS_process_madvise:
	case SYS_process_mrelease:
	case SYS_pidfd_getfd:
		is_signal = false;
		/* fall through */
	case SYS_pidfd_send_signal: {
		int fd = caller_fd(c, a[0]);

		if (fd >= 0) {
			pid_t to = tracee_pidfd_pid(fd);

			close(fd);
			/* -1: it has exited; the kernel answers ESRCH.  A
			 * pidfd names its process: no pid reuse here. */
			ok = to == -1 || to == -EBADF ||
			     (to > 0 && signal_target(to) != TARGET_OUTSIDE);
		}
		/*
		 * Security: the kernel takes the pidfd by its number again
		 * when the call is continued.  Another task sharing the fd
		 * table could dup2() a pidfd of a process outside the tree
		 * over that number meanwhile; the call cannot be carried out
		 * here instead (the signal would come from the supervisor,
		 * with its rights), so it is refused.
		 */
		if (ok && tracee_files_shared(c->tid)) {
			notify_verdict_builtin(&c->v, "sysgate:shared-fds",
					       EPERM);
			c->note = "a pidfd call with an fd table that "
				  "another task shares: the pidfd could be "
				  "swapped before the kernel reads it";
			return 1;
		}
		/* Continued as alone with its table if the rules allow it
		 * (marked whatever they decide: a denied call only holds a
		 * new sharer until the caller's next stop or call): no task
		 * that shares the table runs until the call is over. */
		if (ok)
			tracee_fd_call_continued(c->tid);
		break;
	}
	case SYS_setpgid: {
		pid_t who = pid ? pid : c->tgid;
		pid_t pg = (pid_t)(int32_t)a[1];

		ok = in_tree(who) && (pg == 0 || pg == who || tree_pgrp(s, pg));
		break;
	}
	/* kcmp compares the files, memory and the like of two tasks: both
	 * of the tree (what an outsider holds is none of its business). */
	case SYS_kcmp:
		is_signal = false;
		target = pid;
		switch (signal_target((pid_t)(int32_t)a[1])) {
		case TARGET_TREE:
			break;
		case TARGET_OUTSIDE:
			ok = false;
			target = 0;
			break;
		case TARGET_GONE:
		case TARGET_ZOMBIE:
			/* Not continued: its pid may be reused. */
			c->err = ESRCH;
			c->note = "no such process";
			return 2;
		}
		break;
	/* Another process's memory, read or written (pid 0 names none:
	 * the kernel's error). */
	case SYS_process_vm_readv:
	case SYS_process_vm_writev:
		is_signal = false;
		target = pid;
		break;
	/* ptrace: the target is arg1 (PTRACE_TRACEME names none: it makes
	 * the parent the tracer, and every task has one already). */
	case SYS_ptrace:
		is_signal = false;
		if (a[0] != 0 /* PTRACE_TRACEME */)
			target = (pid_t)(int32_t)a[1];
		break;
	/* Limits, scheduling and NUMA placement of a task named by pid (0:
	 * the caller).  prlimit64 can kill (RLIMIT_CPU of 0). */
	case SYS_migrate_pages:
	case SYS_move_pages:
	case SYS_prlimit64:
	case SYS_sched_setaffinity:
	case SYS_sched_setscheduler:
	case SYS_sched_setparam:
	case SYS_sched_setattr:
		is_signal = false;
		target = pid;
		break;
	/* By "which" and "who": a task, a process group (who 0: the
	 * caller, its group) or every process of a user. */
	case SYS_setpriority:
	case SYS_ioprio_set: {
		bool prio = c->req->data.nr == SYS_setpriority;
		int which = (int)(int32_t)a[0] - (prio ? 0 : 1);
		pid_t who = (pid_t)(int32_t)a[1];

		is_signal = false;
		if (which == 0)			/* PRIO_PROCESS, IOPRIO_WHO_PROCESS */
			target = who;
		else if (which == 1)		/* PRIO_PGRP, IOPRIO_WHO_PGRP */
			ok = who == 0 || tree_pgrp(s, who);
		else if (which == 2)		/* PRIO_USER, IOPRIO_WHO_USER */
			ok = false;
		break;
	}
	default:
		return 0;
	}
	if (target > 0) {
		switch (signal_target(target)) {
		case TARGET_TREE:
			return 0;
		case TARGET_GONE:
			c->err = ESRCH;
			c->note = "no such process";
			return 2;
		case TARGET_ZOMBIE:
			if (!is_signal) {
				/* Not continued: its pid may be reused. */
				c->err = ESRCH;
				c->note = "a zombie of the tree";
				return 2;
			}
			c->result = 0;
			c->have_result = true;
			c->note = "a zombie of the tree: nothing to signal";
			return 2;
		case TARGET_OUTSIDE:
			ok = false;
			break;
		}
	}
	if (ok)
		return 0;
	notify_verdict_builtin(&c->v, "sysgate:outside-tree", EPERM);
	return 1;
}

static bool is_fork(int nr)
{
	return nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone;
}

/*
 * [limits] processes: live tasks (processes and threads) of the tree,
 * counted from ptrace events, plus forks let through whose new task has
 * not been seen yet.  The fork that would exceed fails with EAGAIN, as
 * RLIMIT_NPROC would make it.
 */
static bool fork_over_limit(struct sup *s, struct call *c)
{
	uint64_t live;

	if (!s->max_tasks || !is_fork(c->req->data.nr))
		return false;
	live = (uint64_t)procs_count() + s->forks_inflight;
	if (live < s->max_tasks)
		return false;
	notify_verdict_builtin(&c->v, "sysgate:limit", EAGAIN);
	c->note = "[limits] processes reached";
	if (record_limit(s, procs_find(c->tid), RULES_LIMIT_PROCESSES,
			 s->max_tasks, "fork refused with EAGAIN") < 0)
		sup_fail(s, "cannot write the audit trail");
	return true;
}

/*
 * fcntl(F_SETOWN, F_SETOWN_EX) and ioctl(FIOSETOWN, SIOCSPGRP) name who
 * gets SIGIO (or the F_SETSIG signal) from a file: only the tree.  Returns
 * -1 when c is no such call, else the call is decided and answered.
 */
static int owner_call(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	unsigned cmd = (unsigned)a[1];
	struct f_owner_ex ex = { 0 };
	int ival = 0;
	bool emulate = false, ok;
	struct rules_event ev = { .nr = nr, .exe = c->exe };

	if (nr == SYS_fcntl && cmd == F_SETOWN) {
		int v = (int)a[2];

		ex.type = v < 0 ? F_OWNER_PGRP : F_OWNER_PID;
		ex.pid = v < 0 ? -v : v;
	} else if (nr == SYS_fcntl && cmd == F_SETOWN_EX) {
		/* Security: the struct is copied and the call done on our
		 * copy: the kernel must not read it again. */
		int r = tracee_read(c->tid, a[2], &ex, sizeof(ex));

		if (r < 0) {
			c->err = -r;
			return notify_finish(s, c, false);
		}
		emulate = true;
	} else if (nr == SYS_ioctl && (cmd == FIOSETOWN || cmd == SIOCSPGRP)) {
		int r = tracee_read(c->tid, a[2], &ival, sizeof(ival));

		if (r < 0) {
			c->err = -r;
			return notify_finish(s, c, false);
		}
		ex.type = ival < 0 ? F_OWNER_PGRP : F_OWNER_PID;
		ex.pid = ival < 0 ? -ival : ival;
		emulate = true;
	} else {
		return -1;
	}
	if (!notify_id_valid(s, c->req->id))
		return 0;
	if (ex.pid == 0)
		ok = true;
	else if (ex.type == F_OWNER_PGRP)
		ok = tree_pgrp(s, ex.pid);
	else
		ok = signal_target(ex.pid) != TARGET_OUTSIDE;
	if (!ok) {
		notify_verdict_builtin(&c->v, "sysgate:outside-tree", EPERM);
		return notify_finish(s, c, false);
	}
	memcpy(ev.args, a, sizeof(ev.args));
	rules_match(s->rules, &ev, &c->v);
	if (c->v.stack && stack_request(s, c) > 0)
		return 0;
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		return 0;
	if (c->v.action != RULES_ALLOW || !emulate)
		return notify_finish(s, c, c->v.action == RULES_ALLOW);
	{
		AUTO_CLOSE int fd = caller_fd(c, a[0]);
		int r;

		if (fd < 0) {
			c->err = EBADF;
			return notify_finish(s, c, false);
		}
		c->emulated = true;
		r = nr == SYS_fcntl ? fcntl(fd, F_SETOWN_EX, &ex) :
				      ioctl(fd, cmd, &ival);
		if (r < 0)
			c->err = errno;
		else {
			c->result = r;
			c->have_result = true;
		}
	}
	return notify_finish(s, c, false);
}

/*
 * action = rewrite of a call decided on its registers: the caller restarts
 * it with the changed arguments (regs.c), and it is decided again.
 */
static int scalar_rewrite(struct sup *s, struct call *c)
{
	uint64_t set[6];
	struct proc *p = procs_find(c->tid);

	int rc;

	memcpy(c->orig_args, c->req->data.args, sizeof(c->orig_args));
	memcpy(set, c->orig_args, sizeof(set));
	c->rewrite_rule = c->v.rule;
	c->rewritten = true;
	if (!rules_rewrite_args(&c->v, set)) {
		/* Nothing to change: it runs as it is. */
		c->v.action = RULES_ALLOW;
		return notify_finish(s, c, true);
	}
	/*
	 * Recorded now, as rewritten: the restarted call may be allowed by
	 * the filter without a notification (its new arguments no longer
	 * meet the rule's conditions).
	 */
	c->rw_req = *c->req;
	memcpy(c->rw_req.data.args, set, sizeof(set));
	c->req = &c->rw_req;
	c->v.action = RULES_ALLOW;
	c->note = "restarted with the rewritten arguments";
	pthread_mutex_lock(&finish_lock);
	rc = s->failed ? -EIO : record_call(s, c, NULL);
	if (rc == 0)
		s->counts[RULES_REWRITE]++;
	pthread_mutex_unlock(&finish_lock);
	if (rc < 0) {
		sup_fail(s, "cannot write the audit trail: %s", strerror(-rc));
		return notify_send_resp(s, c->req->id, 0, EPERM, false);
	}
	if (p && regs_rewrite(s, c, p, set, -1, NULL, NULL, 0) == 0)
		return 0;
	/* Security: a call that cannot be rewritten does not run as it
	 * was. */
	return notify_send_resp(s, c->req->id, 0, EPERM, false);
}

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

static int fileattr_call(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	unsigned cmd = (unsigned)a[1];
	struct rules_event ev = { .nr = c->req->data.nr, .exe = c->exe };
	struct rules_verdict scalar;
	struct resolved r;
	int rc;

	memcpy(ev.args, a, sizeof(ev.args));
	rules_match(s->rules, &ev, &scalar);
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
	if (s->as_caller || !fileattr_arg_len(cmd)) {
		/*
		 * Security: continued, a sharer of the table could swap the
		 * fd first; carried out here under --user it would be done
		 * with root's capabilities (CAP_LINUX_IMMUTABLE is not one
		 * the file-system uid drops), and the verity and encryption
		 * commands take pointers that sysgate does not copy: refused.
		 */
		notify_verdict_builtin(&c->v, "sysgate:shared-fds", EPERM);
		c->note = s->as_caller ?
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

static bool is_lease_taken(const __u64 *a)
{
	return (uint32_t)a[1] == F_SETLEASE && (uint32_t)a[2] != F_UNLCK;
}

static int lease_call(struct sup *s, struct call *c)
{
	struct rules_event ev = { .nr = c->req->data.nr, .exe = c->exe };
	struct rules_verdict scalar;
	struct resolved r;
	int rc;

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	rules_match(s->rules, &ev, &scalar);
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

/*
 * Security: a raise of the tree's core size limit, which launch.c sets to
 * 0 (soft and hard), is refused and recorded: a core dump is a file the
 * kernel writes past every rule.  The kernel would refuse a raise of the
 * hard limit itself (the tree lacks CAP_SYS_RESOURCE) and a soft limit
 * above it, so a buffer changed after this copy gains nothing; this check
 * is what puts the attempt in the trail.  True when c is refused.
 */
static bool core_limit_raised(struct call *c)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	unsigned res = (unsigned)(nr == SYS_setrlimit ? a[0] : a[1]);
	uint64_t addr = nr == SYS_setrlimit ? a[1] : a[2];
	struct rlimit rl;

	if ((nr != SYS_setrlimit && nr != SYS_prlimit64) ||
	    res != RLIMIT_CORE || !addr ||
	    tracee_read(c->tid, addr, &rl, sizeof(rl)) < 0 ||
	    (rl.rlim_cur == 0 && rl.rlim_max == 0))
		return false;
	notify_verdict_builtin(&c->v, "sysgate:core-limit", EPERM);
	c->note = "a core size limit above 0";
	return true;
}

static int handle_scalar(struct sup *s, struct call *c)
{
	struct rules_event ev = {
		.nr = c->req->data.nr,
		.exe = c->exe,
	};

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	/* Security: before anything else, a rewritten call included. */
	if (sysv_is_call(c->req->data.nr) && sysv_check(c))
		return notify_finish(s, c, false);
	if (core_limit_raised(c))
		return notify_finish(s, c, false);
	if (c->req->data.nr == SYS_fcntl && is_lease_taken(c->req->data.args) &&
	    rules_mechanism(s->rules, SYS_fchmod, NULL) == RULES_MECH_NOTIFY)
		return lease_call(s, c);
	if (c->req->data.nr == SYS_ioctl &&
	    rules_fileattr_cmd(c->req->data.args[1]) &&
	    rules_mechanism(s->rules, SYS_fchmod, NULL) == RULES_MECH_NOTIFY)
		return fileattr_call(s, c);
	{
		int r = owner_call(s, c);

		if (r >= 0)
			return r;
	}
	if (fork_over_limit(s, c))
		return notify_finish(s, c, false);
	switch (outside_tree(s, c)) {
	case 0:
		/* A restarted call: by every rule but its own rewrite. */
		if (c->rewritten)
			rules_match_rewritten(s->rules, &ev, c->rewrite_rule,
					      &c->v);
		else
			rules_match(s->rules, &ev, &c->v);
		break;
	case 2:
		/* Answered as the kernel would, without running it. */
		return notify_finish(s, c, false);
	default:
		break;
	}
	if (c->v.action == RULES_ALLOW && !c->rewritten &&
	    net_scalar_decides(c))
		return net_scalar(s, c);
	if (c->v.stack && stack_request(s, c) > 0)
		return 0;
	if (c->rewritten && c->v.action == RULES_ALLOW) {
		/* The restarted call, allowed as it now is; its record was
		 * written when it was rewritten. */
		c->v.action = RULES_ALLOW;
		c->v.audit = false;
		/* A SysV get is made here as any other, rewritten or not. */
		if (sysv_is_call(c->req->data.nr) && sysv_allowed(s, c))
			return notify_finish(s, c, false);
		return notify_finish(s, c, true);
	}
	if (c->v.action == RULES_REWRITE)
		return scalar_rewrite(s, c);
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		return 0;
	if (c->v.action == RULES_ALLOW && sysv_is_call(c->req->data.nr) &&
	    sysv_allowed(s, c))
		return notify_finish(s, c, false);
	if (c->v.action == RULES_ALLOW && is_fork(c->req->data.nr) &&
	    s->max_tasks) {
		struct proc *p = procs_find(c->tid);

		if (p && !p->fork_inflight) {
			p->fork_inflight = true;
			s->forks_inflight++;
		}
	}
	/* Security: CONTINUE is safe here: nothing was read from the
	 * tracee's memory to decide. */
	return notify_finish(s, c, c->v.action == RULES_ALLOW);
}

/*
 * Security: a call that would do a mediated call's work without making it
 * (rules_unmediated_refused(): io_uring, the mount family, file handles)
 * under a policy with path or address rules.  The policy's own deny or
 * kill stands; anything else it says is refused with EPERM.  Every one is
 * recorded.  Nothing of the tree's memory is read.
 */
static int unmediated_call(struct sup *s, struct call *c)
{
	struct rules_event ev = { .nr = c->req->data.nr, .exe = c->exe };

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	rules_match(s->rules, &ev, &c->v);
	if (c->v.action == RULES_DENY || c->v.action == RULES_KILL)
		c->v.audit = true;
	else
		notify_verdict_builtin(&c->v, "sysgate:unmediated", EPERM);
	return notify_finish(s, c, false);
}

/* ------------------------------------------------------------------ */
/* --user: the caller's credentials, kept per task                      */

/*
 * Security: with --user every walk and every emulated call is made with
 * the caller's credentials, so they must be the ones the kernel would use
 * for this very call.  Reading them is an open, read and
 * close of /proc/TID/status that the kernel formats whole (13 us here), so
 * they are kept per task and read again after anything that can change
 * them:
 *   - a task's credentials change only by its own calls (commit_creds acts
 *     on current): the set*id family, setgroups and capset, always
 *     notified (rules/filter.c), and an exec (no_new_privs keeps a
 *     set-user-ID program from raising them, but the exec stop counts as
 *     a change anyway);
 *   - each of those makes every kept value stale (one generation for the
 *     run), before the call runs: the task that asked can make its next
 *     call only after the change is done, and it reads them again then;
 *   - a task's calls are sequential and it is blocked while they are
 *     read, so what is read is what the kernel checks this call with.
 * A new task (or a reused tid) starts with none kept.  (creds_gen is
 * defined above, beside the other file-wide state.)
 */

/* The caller's credentials (kept in p), or NULL when they cannot be read. */
static const struct creds *task_creds(struct proc *p, pid_t tid)
{
	if (!p->creds) {
		p->creds = malloc(sizeof(*p->creds));
		if (!p->creds)
			return NULL;
	} else if (p->creds_gen == creds_gen) {
		return p->creds;
	}
	p->creds_gen = 0;
	if (tracee_creds(tid, p->creds) < 0)
		return NULL;
	p->creds_gen = creds_gen;
	return p->creds;
}

static int dispatch(struct sup *s, struct call *c, struct proc *p);

/*
 * --user: the credentials of the event loop's thread.  A call is walked
 * and carried out with its caller's credentials (creds_switch(): uids,
 * gids, groups, effective and inheritable capabilities); they are kept
 * after it, so that the next call of a caller with the same ones (under
 * --user, nearly every call) switches nothing: a switch there and back is
 * a dozen system calls, several of them committing new credentials.
 *
 * Security: what the thread holds between calls is a caller's rights,
 * never more: its permitted capability set stays the supervisor's, which
 * no check of the calls it carries out consults (creds_take() in
 * tracee.c says why), and which keeps the tree from tracing the thread
 * (cap_ptrace_access_check(): our permitted set is not within the
 * tree's).  Every piece of the supervisor's own work runs after
 * notify_creds_release(): the loop calls it before anything but a
 * notification (ptrace stops, exits, signals, answers to ask, limits, the
 * end of the run), and so does a call not walked as its caller.
 */
static struct creds loop_held;	/* the caller's, while loop_holding */
static bool loop_holding;
/* A switch or a release failed half-way: the thread holds something in
 * between, which no call may use (loop_holding is false: the next call
 * switches in full) and the release gives back. */
static bool loop_unsure;

/* Take on a caller's credentials in the loop's thread; 0 or -errno (then
 * the thread has its own). */
static int loop_creds_take(const struct creds *kept)
{
	int r;

	if (!loop_have_own) {
		/* Read while the thread has its own: nothing but this
		 * file changes them, and notify_creds_release() puts them
		 * back. */
		if ((r = creds_save(&loop_own)) < 0)
			return r;
		loop_have_own = true;
	}
	/* The same ids, groups and capabilities: nothing to switch; only
	 * the umask read with them may differ. */
	bool same = loop_holding && creds_same(&loop_held, kept);

	/* A copy (what the call reads): the task may go (its exit seen)
	 * before the call is done with them. */
	loop_held = *kept;
	if (same)
		return 0;
	r = creds_switch(&loop_held, &loop_own);
	loop_holding = r == 0;
	loop_unsure = r < 0;
	return r;
}

void notify_creds_release(void)
{
	int r;

	if (!loop_holding && !loop_unsure)
		return;
	r = creds_leave(&loop_own);
	loop_holding = false;
	loop_unsure = r < 0;
	/* Fail closed: the next call switches in full, or is refused;
	 * the next release tries again. */
	if (r < 0)
		fprintf(stderr, "sysgate: cannot take back own credentials: %s\n",
			strerror(-r));
}

int notify_handle_one(struct sup *s, struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp)
{
	(void)resp;
	/* libseccomp does not zero it, and the kernel refuses a dirty one. */
	memset(req, 0, s->sizes.seccomp_notif);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
		if (errno == ENOENT || errno == EINTR)
			return 0;	/* withdrawn, or caller gone */
		return -errno;
	}
	s->notifications++;
	if ((pid_t)req->pid != s->last_caller) {
		s->last_caller = (pid_t)req->pid;
		s->caller_switch = s->notifications;
		/* Two callers: the loop free to run where one is idle. */
		cpubind_release_self();
	}
	return notify_handle_req(s, req);
}

/*
 * A zeroed call, but for its path buffers (64 KiB, written at every
 * notification otherwise): those start as empty strings.
 */
static void call_init(struct call *c)
{
	const size_t head = offsetof(struct call, paths);
	const size_t tail = head + sizeof(c->paths);

	memset(c, 0, head);
	memset((char *)c + tail, 0, sizeof(*c) - tail);
	for (size_t i = 0; i < CALL_MAX_PATHS; i++) {
		struct call_path *cp = &c->paths[i];

		memset(cp, 0, offsetof(struct call_path, raw));
		cp->raw[0] = '\0';
		cp->resolved[0] = '\0';
		cp->redirect[0] = '\0';
		cp->from[0] = '\0';
	}
}

int notify_handle_req(struct sup *s, struct seccomp_notif *req)
{
	struct call c;
	struct proc *p;
	char namebuf[32];
	int nr = req->data.nr;

	call_init(&c);
	c.req = req;
	/*
	 * Until a rule decides, a call that fails on its own (a bad pointer,
	 * a missing directory) is recorded as the kernel's answer: allowed
	 * to fail, under audit = all.
	 */
	c.v.action = RULES_ALLOW;
	c.v.audit = rules_audit_level(s->rules) == RULES_AUDIT_ALL;
	c.note = NULL;
	c.tid = (pid_t)req->pid;
	resolve_note_call(c.tid, nr);
	cpubind_note_call(c.tid, nr, req->data.args[0]);
	if (rules_changes_creds(nr))
		creds_gen++;
	p = procs_find(c.tid);
	if (!p || !p->exe)
		notify_creds_release();	/* /proc reads of our own */
	if (!p) {
		/* A new task can be notified before its first ptrace stop. */
		pid_t tg = tracee_tgid(c.tid);

		p = procs_add(c.tid, tg > 0 ? tg : c.tid, 0);
		if (!p)
			return notify_send_resp(s, req->id, 0, ENOMEM, false);
		if (tg > 0 && tg != c.tid) {
			struct proc *leader = procs_find(tg);

			if (leader && leader->exe)
				procs_set_exe(p, leader->exe);
		}
	}
	c.tgid = p->tgid;
	/* A new call: any it was continued in is over. */
	tracee_seen(p);
	/* The call a rewrite restarted with new registers: decided on
	 * them, by every rule but its own rewrite. */
	if (p->edit)
		regs_edited_call(p, &c);
	if (p->fork_inflight) {
		/* Its fork has returned (or it would not be here). */
		p->fork_inflight = false;
		s->forks_inflight--;
	}
	if (!p->exe) {
		char exe[PATH_MAX];

		if (tracee_exe(c.tid, exe, sizeof(exe)) == 0)
			procs_set_exe(p, exe);
	}
	c.exe = p->exe;
	c.info = rules_syscall_by_nr(nr);
	c.name = c.info ? c.info->name : NULL;
	if (!c.name) {
		snprintf(namebuf, sizeof(namebuf), "syscall_%d", nr);
		c.name = namebuf;
	}

	if (req->data.arch != AUDIT_ARCH_X86_64) {
		/* The guard filter kills other ABIs; never let one through. */
		notify_verdict_builtin(&c.v, "sysgate:arch", ENOSYS);
		return notify_finish(s, &c, false);
	}
	/* A process is always allowed to end. */
	if (nr == SYS_exit || nr == SYS_exit_group || nr == SYS_rt_sigreturn)
		return notify_send_resp(s, req->id, 0, 0, true);

	/* Security: the closed world (rules/filter.c): a number without a
	 * row of the syscall table, and a call refused under every policy,
	 * fail as on a kernel without them, and the attempt is recorded. */
	if (!c.info || c.info->decide == RULES_DECIDE_REFUSED) {
		notify_verdict_builtin(&c.v, c.info ? "sysgate:refused" :
				       "sysgate:unknown-syscall", ENOSYS);
		return notify_finish(s, &c, false);
	}
	if (rules_unmediated_refused(s->rules, nr))
		return unmediated_call(s, &c);
	if (s->as_caller && c.info->kind != RULES_KIND_SCALAR) {
		/* Opened with our own rights: a caller's may not open it
		 * (one that made itself non-dumpable). */
		(void)tracee_mem_fd(c.tid);
		/*
		 * Security: --user: the supervisor is root; every walk and
		 * every emulated call is done with the caller's credentials
		 * (ids, groups, capabilities), so it lends none of its own
		 * rights.
		 */
		const struct creds *kept = task_creds(p, c.tid);

		if (!kept || loop_creds_take(kept) < 0) {
			notify_verdict_builtin(&c.v, "sysgate:credentials", EPERM);
			return notify_finish(s, &c, false);
		}
		c.creds = &loop_held;
		/* Kept after the call: the next one is most often the same
		 * caller's; the loop puts ours back before any work of its
		 * own (notify_creds_release()). */
		return dispatch(s, &c, p);
	}
	notify_creds_release();
	return dispatch(s, &c, p);
}

/*
 * One handler per family of the syscall table (rules/syscalls.c, the
 * row's family): adding a syscall is a row there and, for a family of its
 * own, a handler here.  Each takes the call as received and answers it.
 */
typedef int (*family_handler)(struct sup *s, struct call *c, struct proc *p);

static int fam_scalar(struct sup *s, struct call *c, struct proc *p)
{
	(void)p;
	return handle_scalar(s, c);
}

static int fam_open(struct sup *s, struct call *c, struct proc *p)
{
	(void)p;
	return handle_open(s, c);
}

static int fam_change(struct sup *s, struct call *c, struct proc *p)
{
	enum op op = path_op(c->req->data.nr);

	(void)p;
	if (op == OP_UNSUPPORTED || op == OP_OPEN || op >= OP_STAT)
		return refuse_unsupported(s, c);
	return handle_change(s, c, op);
}

static int fam_meta(struct sup *s, struct call *c, struct proc *p)
{
	enum op op = path_op(c->req->data.nr);

	(void)p;
	if (op < OP_STAT || op > OP_FANOTIFY)
		return refuse_unsupported(s, c);
	return handle_meta(s, c, op);
}

static int fam_exec(struct sup *s, struct call *c, struct proc *p)
{
	return handle_exec(s, c, p);
}

static int fam_net(struct sup *s, struct call *c, struct proc *p)
{
	(void)p;
	return net_handle(s, c);
}

/* Security: the closed world (notify_handle_req() refuses these before,
 * this row is the table's own word for it). */
static int fam_refused(struct sup *s, struct call *c, struct proc *p)
{
	(void)p;
	notify_verdict_builtin(&c->v, "sysgate:refused", ENOSYS);
	return notify_finish(s, c, false);
}

static const family_handler family_handlers[] = {
	[RULES_FAM_SCALAR] = fam_scalar,
	[RULES_FAM_OPEN] = fam_open,
	[RULES_FAM_CHANGE] = fam_change,
	[RULES_FAM_META] = fam_meta,
	[RULES_FAM_EXEC] = fam_exec,
	[RULES_FAM_NET] = fam_net,
	[RULES_FAM_REFUSED] = fam_refused,
};

static int refuse_unsupported(struct sup *s, struct call *c)
{
	notify_verdict_builtin(&c->v, "sysgate:unsupported", ENOSYS);
	return notify_finish(s, c, false);
}

static int dispatch(struct sup *s, struct call *c, struct proc *p)
{
	unsigned f = (unsigned)c->info->family;

	if (f < ARRAY_SIZE(family_handlers) && family_handlers[f])
		return family_handlers[f](s, c, p);
	return refuse_unsupported(s, c);
}
