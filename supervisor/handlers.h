/* SPDX-License-Identifier: MIT */
/*
 * The trusted path inside: what the core (notify.c) and the handlers of
 * the syscall families (h-*.c, net.c) share.  A handler takes a call as
 * received, copies and resolves its paths (callpath.c), decides it,
 * carries it out or not, and answers it through notify_finish().
 */
#ifndef SYSGATE_SUPERVISOR_HANDLERS_H
#define SYSGATE_SUPERVISOR_HANDLERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/call.h"
#include "supervisor/notify.h"

struct creds;
struct proc;
struct resolved;
struct sup;

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

/* The operation of a path call: which stage functions of h-change.c and
 * h-meta.c apply to it (their tables, change_calls and meta_calls). */
enum op {
	OP_OPEN, OP_MKDIR, OP_MKNOD, OP_UNLINK, OP_RENAME, OP_LINK,
	OP_SYMLINK, OP_CHMOD, OP_CHOWN, OP_TRUNCATE,
	/* Handled by handle_meta: look at, or change metadata of, a path. */
	OP_STAT, OP_STATX, OP_ACCESS, OP_READLINK, OP_CHDIR, OP_STATFS,
	OP_GETXATTR, OP_LISTXATTR, OP_SETXATTR, OP_REMOVEXATTR, OP_UTIMES,
	OP_INOTIFY, OP_FANOTIFY,
	OP_UNSUPPORTED,
};

/* The core (notify.c). */
bool caller_alone(const struct sup *s);
void decide_call(struct call *c);
int rewrite_restart(struct sup *s, struct call *c);
/* Fail closed: a call the supervisor cannot carry out faithfully. */
int notify_refuse_unsupported(struct sup *s, struct call *c);
/* The trail's records are written one at a time (notify_finish() and
 * every other writer of a call's records). */
void notify_records_lock(void);
void notify_records_unlock(void);

/* The paths of a call (callpath.c). */
int caller_fd(const struct call *c, uint64_t arg);
int copy_path(struct call *c, int arg, const char *name);
int call_resolve_open(struct sup *s, struct call *c, int idx, unsigned flags,
		      unsigned acc, int dir_oflags, struct resolved *r);
int call_resolve(struct sup *s, struct call *c, int idx, unsigned flags,
		 unsigned acc, struct resolved *r);
bool probe_redirect(struct sup *s, struct call *c, struct call_path *cp,
		    const char *path, unsigned acc);
void decide_path(struct sup *s, struct call *c, struct call_path *cp,
		 const struct resolved *r, unsigned access);
void answer_exists(struct sup *s, struct call *c, struct call_path *cp,
		   const struct resolved *r);

/* --user: the caller's credentials (callercreds.c).  caller_creds_take:
 * the loop's thread takes on the caller's (kept in p), NULL when it
 * cannot; caller_creds_own: the loop's own, NULL before it first took a
 * caller's; caller_creds_stale: every kept value must be read again. */
const struct creds *caller_creds_take(struct proc *p, pid_t tid);
const struct creds *caller_creds_own(void);
void caller_creds_stale(void);

/* The families' handlers. */
int handle_open(struct sup *s, struct call *c, struct proc *p);	/* h-open.c */
int reopen_fd(int fd, uint64_t flags);				/* h-open.c */
int handle_change(struct sup *s, struct call *c, struct proc *p); /* h-change.c */

/*
 * Per call: its operation and where its arguments other than the paths
 * are (the syscall table's row has the paths and their dirfds).  -1:
 * the call has none.
 */
struct change_call {
	int nr;
	enum op op;
	signed char mode;	/* mkdir, mknod, chmod: the mode */
	signed char dev;	/* mknod: the device number */
	signed char flags;	/* the AT_* or RENAME_* flags word */
	signed char owner;	/* chown: the uid (the gid follows);
				 * truncate: the length */
	int fixed_flags;	/* flags implied by the call (rmdir) */
	bool follow;		/* the last symlink is followed unless the
				 * flags say AT_SYMLINK_NOFOLLOW */
};
/* Its row of change_calls (change-calls.c), NULL: none. */
const struct change_call *change_call_of(int nr);
/* rename or unlink: a call that takes a name away (change-calls.c). */
bool change_removes_name(int nr);
int handle_meta(struct sup *s, struct call *c, struct proc *p);	/* h-meta.c */
int handle_exec(struct sup *s, struct call *c, struct proc *p);	/* h-exec.c */
int handle_scalar(struct sup *s, struct call *c, struct proc *p); /* h-scalar.c */
int unmediated_call(struct sup *s, struct call *c);		/* h-scalar.c */

/* Processes and signals (h-proc.c): outside_tree returns 0 to go on
 * deciding, 1 when the call is denied (verdict set), 2 when it is
 * answered here; owner_call -1 when c is no F_SETOWN-like call. */
int outside_tree(struct sup *s, struct call *c);
bool is_fork(int nr);
bool fork_over_limit(struct sup *s, struct call *c);
int owner_call(struct sup *s, struct call *c);
bool core_limit_raised(struct call *c);

/* File attributes and leases (h-fileattr.c). */
int fileattr_call(struct sup *s, struct call *c);
bool is_lease_taken(const __u64 *a);
int lease_call(struct sup *s, struct call *c);

#endif
