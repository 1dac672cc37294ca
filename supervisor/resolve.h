/* SPDX-License-Identifier: MIT */
/* Path resolution as the caller would (resolve.c). */
#ifndef SYSGATE_SUPERVISOR_RESOLVE_H
#define SYSGATE_SUPERVISOR_RESOLVE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct proc;

enum resolve_flags {
	RES_FOLLOW = 1 << 0,        /* follow a symlink in the last component */
	RES_NO_SYMLINKS = 1 << 1,   /* openat2 RESOLVE_NO_SYMLINKS */
	RES_NO_MAGICLINKS = 1 << 2, /* openat2 RESOLVE_NO_MAGICLINKS */
	RES_BENEATH = 1 << 3,       /* openat2 RESOLVE_BENEATH */
	RES_IN_ROOT = 1 << 4,       /* openat2 RESOLVE_IN_ROOT */
	RES_EMPTY_PATH = 1 << 5,    /* AT_EMPTY_PATH: "" names dirfd itself */
	RES_NO_XDEV = 1 << 6,       /* openat2 RESOLVE_NO_XDEV */
	RES_OPEN = 1 << 7,          /* for an open: an existing object needs
				     * no parent_fd (the whole path may be
				     * taken in one openat2) */
	RES_OBJECT = 1 << 8,        /* only the object is needed, no
				     * parent_fd or name (exec): an absolute
				     * path may be taken whole, links and
				     * all, in one openat2 */
};

struct resolved {
	int parent_fd;       /* O_PATH fd of the directory holding the last
			      * component, -1 when the path names a magic
			      * object or "/" */
	char name[NAME_MAX + 1]; /* last component ("" when parent_fd < 0) */
	int fd;              /* O_PATH fd of the object, -1 if it does not exist */
	struct stat st;      /* valid when fd >= 0 */
	char path[PATH_MAX]; /* canonical absolute path (of the object, or of
			      * parent + name when it does not exist) */
	bool trailing_slash; /* the path ended in '/' */
	char self_link[64];  /* the last component was /proc/self or
			      * /proc/thread-self, not followed: the text the
			      * link has for the caller ("" otherwise) */
	pid_t via_pid;       /* the object was reached through the magic link
			      * /proc/via_pid/fd/via_fd (0 when not) */
	int via_fd;
	bool partial;        /* -ENOENT for a missing directory on the way:
			      * path is what the caller named, canonical as
			      * far as it exists, then as written */
	bool opened;         /* fd is the directory already opened with the
			      * open flags passed to resolve_path_open(),
			      * not an O_PATH fd */
};

/*
 * Resolve path as task tid (thread group tgid) would: dirfd (AT_FDCWD or a
 * tracee fd number) and its cwd and root applied, "."/".." and symlinks
 * followed by the supervisor one component at a time with O_PATH|O_NOFOLLOW
 * fds, /proc/self and /proc/thread-self mapped to the caller, magic links of
 * tree processes taken as the objects they point to.  The canonical path is
 * read back from the final fd (what the kernel will act on).
 * Returns 0 and fills *out (release with resolved_release), or -errno as the
 * kernel would have answered the call (ENOENT for a missing directory,
 * ENOTDIR, ELOOP, ENAMETOOLONG, EACCES for a /proc entry of a process outside
 * the tree, ...).
 */
int resolve_path(pid_t tid, pid_t tgid, int dirfd, const char *path,
		 unsigned flags, struct resolved *out);
/*
 * The same for an open.  dir_oflags, when not 0, are the flags of an
 * O_DIRECTORY open (read-only, no O_CREAT, O_TRUNC, O_PATH or O_TMPFILE):
 * the last component may then be opened with them straight away, and
 * out->opened says so.
 */
int resolve_path_open(pid_t tid, pid_t tgid, int dirfd, const char *path,
		      unsigned flags, int dir_oflags, struct resolved *out);
void resolved_release(struct resolved *r);
void resolved_init(struct resolved *r);
/*
 * The supervisor's own /proc/self/fd directory, opened once (thread-safe),
 * so that reading back or reopening one of our fds costs one lookup in it
 * instead of a walk of "/proc/self/fd/N".  Returns the fd, or -1 when it
 * cannot be opened (callers then use the path).  Never close it.
 */
int resolve_self_fd_dir(void);
/*
 * Called once before the tree starts: true when the policy lets no call
 * change a task's root (chroot, pivot_root, setns and unshare all refused:
 * rules_never_allows()).  Each task's root is then opened once and kept
 * (most share one fd), instead of /proc/TID/root at every walk.
 */
void resolve_set_root_fixed(bool fixed);
/* The task behind p is another one (the thread that exec'd took the
 * leader's tid), or is gone: its root and cwd are looked up again. */
void resolve_forget_root(struct proc *p);
/* child was just made by parent, in its mount namespace: same root. */
void resolve_inherit_root(struct proc *child, const struct proc *parent);
/*
 * Every notification, first thing, on the main thread: tid made call nr.
 * A chdir, fchdir or umask (always notified) makes every kept cwd and
 * umask stale, and none is kept until the task that made it is seen making
 * another call (by then the change is done).  A call that may move a root
 * (rules_moves_root(), notified whenever the policy may allow it) does the
 * same to every kept root and cwd.
 */
void resolve_note_call(pid_t tid, int nr);
/* The umask of task tid, kept under the rules of the cwds (resolve.c);
 * read from /proc/TID/status when not kept.  -errno when unreadable. */
int resolve_task_umask(pid_t tid);
/*
 * tid is at a ptrace stop: a chdir, fchdir, umask or root move it was let through has been
 * carried out (a stop comes after the call's body, or the call is restarted
 * and notified again).
 */
void resolve_task_seen(pid_t tid);
/* A task shares its working directory with another process (clone with
 * CLONE_FS and without CLONE_THREAD): no cwd is kept from now on. */
void resolve_cwd_shared(void);

#endif
