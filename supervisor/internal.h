/* SPDX-License-Identifier: MIT */
/*
 * Private to supervisor/: the supervisor's state, the process table, tracee
 * memory access, path resolution, notification handling and recording.
 */
#ifndef SYSGATE_SUPERVISOR_INTERNAL_H
#define SYSGATE_SUPERVISOR_INTERNAL_H

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/seccomp-compat.h"
#include "rules/rules.h"
#include "supervisor/cgroup.h"
#include "supervisor/decode.h"
#include "supervisor/supervisor.h"
#include "supervisor/stack.h"

struct audit_writer;
struct call;

/* ------------------------------------------------------------------ */
/* Process table (procs.c): one entry per traced task (thread).        */

struct exec_check {
	bool pending;
	char raw[PATH_MAX + 32]; /* the path as the kernel names it (AT_EXECFN) */
	dev_t dev;            /* what the checked path resolved to */
	ino_t ino;
	bool script;          /* the checked file starts with "#!" */
	char path[PATH_MAX];  /* canonical path that was checked */
};

struct proc {
	pid_t tid;
	pid_t tgid;
	pid_t ppid;         /* tgid of the parent process */
	bool attached;      /* its first ptrace stop was seen */
	bool exited;
	bool leader_exec;   /* has exec'd at least once */
	char *exe;          /* canonical path of its program (shared by a
			     * thread group: every thread holds a copy) */
	char *argv;         /* the argv of its last exec, NUL-separated
			     * (argv_len bytes); NULL: not exec'd under
			     * us (its parent's, then) */
	size_t argv_len;
	uint64_t start_us;
	struct exec_check *exec; /* allocated on the first exec notification */
	int pidfd;          /* its pidfd (a thread's with PIDFD_THREAD),
			     * opened on first use and kept (-1: none yet;
			     * tracee.c) */
	bool fork_inflight; /* a fork it asked for was let through, and its
			     * event has not come yet */
	struct regs_edit *edit; /* a call being rewritten in its registers
				 * (regs.c), NULL: none */
	unsigned edit_fails;
	struct stack_trace *stack; /* stack = yes: taken for its current or
				    * last call (stack.h) */
	int root_fd;        /* its root as kept (resolve.c): -1 not known
			     * yet, -2 the shared root ... */
	uint64_t root_gen;  /* ... at this root generation */
	int cwd_fd;         /* its working directory as last looked up
			     * (resolve.c; closed when it may have
			     * changed), -1: none kept */
	int umask;          /* its umask as last read (resolve.c) ... */
	uint64_t umask_gen; /* ... at this generation, 0: not read */
	struct creds *creds; /* --user: its credentials as last read
			      * (notify.c) ... */
	uint64_t creds_gen; /* ... at this generation, 0: not read */
	bool stack_wanted;  /* interrupted for a stack, its stop not seen */
	bool fd_alone;      /* continued a call on an fd number as alone with
			     * its fd table; not seen since (tracee.c) */
	bool fd_interrupted; /* ... and interrupted for a held task */
	bool held;          /* kept at its first stop (tracee_hold_new()) */
	int held_sig;       /* the signal to resume it with */
	unsigned stack_tries; /* interrupts since a stack was last used */
	struct sig_note sig; /* its last signal-delivery stop (tracee.c) */
	struct proc *next;  /* hash chain */
};

struct proc *procs_find(pid_t tid);
/* Add a task (or return the existing entry).  NULL when out of memory. */
struct proc *procs_add(pid_t tid, pid_t tgid, pid_t ppid);
void procs_del(pid_t tid);
/* True when pid is a thread-group id of a live traced process. */
bool procs_is_tree_tgid(pid_t pid);
unsigned procs_count(void);
/* Call fn for each live task. */
void procs_each(void (*fn)(struct proc *p, void *arg), void *arg);
void procs_set_exe(struct proc *p, const char *exe);
/* Keep a copy of argv[0..len) (NUL-separated) as p's; on no memory the
 * old one stays. */
void procs_set_argv(struct proc *p, const char *argv, size_t len);

/* ------------------------------------------------------------------ */
/* The supervisor's state (one per run).                               */

struct denial {
	char verb[32];
	char what[256];
	char exe[64];
	char rule[64];
	unsigned count;
};

#define SUP_MAX_DENIALS 256

/* A task bound to the event loop's CPU for a while (cpubind.c). */
struct cpubind {
	pid_t caller;		/* the caller bound (0: not) */
	cpu_set_t mask;		/* its own mask */
	bool self;		/* the event loop bound as well */
	bool keep;		/* the caller stays bound after the call */
};

/* Directories above the trail, at most (deeper: the run refuses it). */
#define SUP_TRAIL_DIRS_MAX 256
struct sup_dir_id {
	dev_t dev;
	ino_t ino;
	const char *rule;	/* the rule a refusal names */
};

/* Files of the run's own configuration, guarded from the tree by inode:
 * the signing key (not read, not changed), the policy and its includes
 * and the public key (not changed). */
#define SUP_GUARDS_MAX 80
struct sup_guard {
	dev_t dev;
	ino_t ino;
	bool secret;		/* not even read */
};

struct sup {
	const struct supervisor_opts *opts;
	const struct rules_set *rules;
	struct audit_writer *audit;
	int listener;             /* seccomp user-notification fd */
	int sigfd;
	pid_t child;              /* the command's first process */
	struct cpubind child_bind; /* it on our CPU until its exec (loop.c) */
	pid_t self;               /* the supervisor's pid */
	dev_t audit_dev;          /* the trail file, protected from the tree */
	ino_t audit_ino;
	bool have_audit_ino;
	/* The directories above the trail, its own up to "/", kept where
	 * they are (notify_trail_dir_guard()); its canonical path. */
	struct sup_dir_id trail_dirs[SUP_TRAIL_DIRS_MAX];
	unsigned n_trail_dirs;
	char trail_real[PATH_MAX];
	struct sup_guard guards[SUP_GUARDS_MAX];
	unsigned n_guards;
	char state_dirs[2][PATH_MAX];	/* canonical; "" for none */
	int child_status;         /* wait status of the command, -1 until known */
	bool child_execd;         /* the command's first exec succeeded */
	bool sealed;              /* made non-dumpable (seal()) */
	int first_exec_err;       /* errno of a denied first exec */
	const char *first_exec_rule;
	char *const *env_dropped; /* names [env] dropped (run.start) */
	bool failed;              /* a failure of sysgate itself: exit 125 */
	char fail_msg[256];
	uint64_t start_us;
	uint64_t counts[5];       /* per rules_action */
	uint64_t notifications;
	struct denial denials[SUP_MAX_DENIALS];
	unsigned n_denials;
	unsigned long denials_dropped;
	struct seccomp_notif_sizes sizes;
	unsigned forks_inflight;  /* forks continued, new task not seen yet */
	uint64_t max_tasks;       /* [limits] processes, 0: none */
	uint64_t wall_deadline_us;/* [limits] wall, 0: none */
	bool wall_hit;
	struct cgroup_run cg;     /* the tree's cgroups (cgroup.c) */
	uint64_t cpu_limit_ms;    /* [limits] cpu, 0: none */
	bool cpu_hit;             /* the tree was killed for it */
	uint64_t next_cg_check_us;/* next look at the cgroups' counters */
	uint64_t oom_seen;        /* OOM kills already recorded */
	uint64_t pids_refused_seen; /* forks refused at pids.max, recorded */
	int denials_fd;           /* --denials-fd, -1: none */
	bool as_caller;           /* --user: emulate with the caller's
				   * credentials */
	bool sync_wake;           /* the kernel has SYNC_WAKE_UP ... */
	bool sync_on;             /* ... and the listener has it now */
	pid_t last_caller;        /* tid of the last notification */
	uint64_t caller_switch;   /* notifications when it changed */
	unsigned ipc_removed;     /* SysV objects of the tree removed at
				   * the end of the run (sysv.c) */
};

extern struct sup *sup_global;

/* Stop the whole tree and remember why sysgate fails (exit 125). */
void sup_fail(struct sup *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Kill every traced process (SIGKILL). */
void sup_kill_tree(void);
/* The signals the loop takes from its signalfd (and passes on to the
 * tree, but SIGCHLD). */
void sup_signal_mask(sigset_t *mask);

/* ------------------------------------------------------------------ */
/* Tracee memory (tracee.c): the only place that reads tracee memory.  */

/* Copy a NUL-terminated string of at most max-1 bytes from the tracee.
 * Returns its length, -ENAMETOOLONG, -EFAULT or -ESRCH. */
ssize_t tracee_read_str(pid_t tid, uint64_t addr, char *buf, size_t max);
/* Copy exactly len bytes.  0, -EFAULT or -ESRCH. */
int tracee_read(pid_t tid, uint64_t addr, void *buf, size_t len);
/* The calling thread's fd of /proc/TID/mem (kept; do not close), or
 * -ESRCH / -EFAULT.  Opened before the loop takes on a caller's
 * credentials, so that reads need none of the supervisor's. */
int tracee_mem_fd(pid_t tid);
/* Every kept fd of /proc/TID/mem is stale: a traced task exec'd or
 * exited (its tid may name another address space from now on). */
void tracee_mem_forget(void);
/* Write len bytes into the tracee (results of emulated calls). */
int tracee_write(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* The task's umask (from /proc), or -errno. */
int tracee_umask(pid_t tid);
/* Thread-group id of a task, or -errno. */
pid_t tracee_tgid(pid_t tid);
/* Canonical path of the task's executable into buf. 0 or -errno. */
int tracee_exe(pid_t tid, char *buf, size_t len);
/* At tid's signal-delivery stop: its siginfo (who sent the signal,
 * where it faulted: PTRACE_GETSIGINFO) into *out; 0 or -errno. */
int tracee_siginfo(pid_t tid, siginfo_t *out);
/*
 * What the kernel wrote for a program at its exec stop (before it ran a
 * single instruction): its argv, NUL-separated and cut at EXEC_MAX_ARGV
 * bytes, and AT_EXECFN, the path the kernel opened (have_execfn false
 * when it could not be read: the caller must treat that as a mismatch).
 */
#define EXEC_MAX_ARGV (64 * 1024)
struct exec_image {
	bool have_execfn;
	char execfn[PATH_MAX];
	size_t argv_len;
	char argv[EXEC_MAX_ARGV];
};
/* Fill out for task tid, stopped at its PTRACE_EVENT_EXEC.  Never fails:
 * what cannot be read is left empty.  The event loop's thread only (it
 * reads into a static buffer). */
void tracee_exec_image(pid_t tid, struct exec_image *out);
/* Process group of a process (from /proc), or -errno. */
pid_t tracee_pgrp(pid_t pid);
/* The pid a pidfd (of ours) refers to: -1 once it exited, -EBADF if fd is
 * not a pidfd. */
pid_t tracee_pidfd_pid(int pidfd);
/* The credentials of a task or of a thread of ours: what the kernel checks
 * the task's calls against (uids, gids, groups, capabilities). */
#define CREDS_MAX_GROUPS 256
struct creds {
	uid_t uid, euid, suid, fsuid;
	gid_t gid, egid, sgid, fsgid;
	int n_groups;
	gid_t groups[CREDS_MAX_GROUPS];
	uint64_t cap_eff, cap_prm, cap_inh;
	int secbits;		/* a thread of ours: its securebits */
	int umask;		/* a task: read with them; -1 when the kernel
				 * shows none */
};
/* Read a task's (and its umask) from /proc/TID/status.  0 or -errno
 * (-E2BIG: too many groups). */
int tracee_creds(pid_t tid, struct creds *out);
/* The calling thread's own, as they are: 0 or -errno. */
int creds_save(struct creds *saved);
/* Same ids, groups, effective and inheritable capabilities (what a
 * thread takes on of a task's; its permitted set stays its own). */
bool creds_same(const struct creds *a, const struct creds *b);
/*
 * Take on c in the calling thread, whatever it held (own: the thread's
 * own, from creds_save()): real, effective, saved and file-system uids
 * and gids, groups, and c's effective and inheritable capabilities (within
 * own's permitted set, which the thread keeps, so it can come back).  The
 * kernel then checks whatever the thread does as it checks c's task.  On
 * failure the thread has own again (as far as creds_leave() can).  Only
 * a thread whose own credentials are root's (--user) may call it.  0 or
 * -errno.
 */
int creds_switch(const struct creds *c, const struct creds *own);
/* Give back what creds_switch() took (or what a thread inherited from
 * one that held a caller's): the thread has own again.  Nothing is done
 * when it already has them.  0 or -errno (then it holds something in
 * between, never more than own). */
int creds_leave(const struct creds *own);
/* True on the event loop's thread (the only one that may touch the
 * process table). */
bool tracee_on_main_thread(void);
void tracee_set_main_thread(void);
/* open(2) of a tracee's /proc/TID link (cwd, root) for the supervisor's
 * own walk: when the calling thread holds a caller's credentials and the
 * caller is not dumpable, with CAP_SYS_PTRACE for that one call (see
 * own_ptrace_begin() in tracee.c).  fd, or -1 with errno set. */
int tracee_proc_open(const char *path, int flags);
/* Take a dup of fd N of thread tid of process tgid (pidfd_getfd), from
 * that thread's own fd table.  fd or -errno. */
int tracee_getfd(pid_t tid, pid_t tgid, int fd);
/* True when another task of the tree shares tid's fd table (kcmp), or
 * when that cannot be told.  Event loop only (the process table). */
bool tracee_files_shared(pid_t tid);
/* tid's call that takes an fd by number is continued as alone with its
 * table: until tid is seen again (tracee_seen(), tracee_gone()), a new
 * task sharing that table is held at its first stop. */
void tracee_fd_call_continued(pid_t tid);
/* At the first stop of a task np whose creator's event was not seen: when
 * it shares the table of such a call, it is held (np->held: not to be
 * resumed; held_sig is what to resume it with) and the caller interrupted,
 * so that its next stop tells the call is over. */
void tracee_hold_new(struct proc *np);
/* p stopped or made a call (its continued call is over), or ended; held
 * tasks waiting for nothing else are resumed. */
void tracee_seen(struct proc *p);
void tracee_gone(struct proc *p);

/* ------------------------------------------------------------------ */
/* Path resolution (resolve.c).                                        */

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

/* ------------------------------------------------------------------ */
/* Tasks with a call let through and not yet seen again (resolve.c,    */
/* cpubind.c): a small set, cleared one task at a time.                */

#define TID_SET_MAX 16
struct tid_set {
	pid_t tids[TID_SET_MAX];
	unsigned n;
};
/* Add tid: false when the set is full (nothing added). */
static inline bool tid_set_add(struct tid_set *ts, pid_t tid)
{
	if (ts->n == TID_SET_MAX)
		return false;
	ts->tids[ts->n++] = tid;
	return true;
}
static inline void tid_set_del(struct tid_set *ts, pid_t tid)
{
	for (unsigned i = 0; i < ts->n; i++)
		if (ts->tids[i] == tid) {
			ts->tids[i] = ts->tids[--ts->n];
			return;
		}
}

/* ------------------------------------------------------------------ */
/* An ADDFD's caller (and the command's child, from its listener's    */
/* hand-off to its exec) kept on the event loop's CPU (cpubind.c).     */

/*
 * Bind the caller tid (asleep in its notified call) to the CPU the event
 * loop runs on, for an ADDFD; nothing where that cannot be done (not the
 * loop thread, one CPU, a mask that leaves the CPU out or names it alone,
 * a cross-task sched_setaffinity in flight).  Always returns 0; b says
 * what was bound.  run: the call is one of a run of calls from one caller
 * alone; the event loop, bound too, then stays bound after the call.
 */
int cpubind_enter(pid_t tid, struct cpubind *b, bool run);
/* Put the caller's mask back, before the reply, unless it is kept bound
 * (a run's caller, until cpubind_release_self()): 0, or -errno when it
 * could not be (binding is then given up for the run). */
int cpubind_leave(struct cpubind *b);
/* Is the event loop kept bound to its CPU between calls (a run's)? */
bool cpubind_self_kept(void);
/* The event loop's own mask back, if it was kept bound, and the kept
 * caller's: another caller came, the loop found no work for a while, or
 * a long-lived thread is about to be started (it would inherit the
 * mask). */
void cpubind_release_self(void);
/* A notification was answered (the event loop, after each one). */
void cpubind_call_done(void);
/* When the kept caller's last call was answered (0: no caller is kept). */
uint64_t cpubind_kept_since_us(void);
/* Every notification, first thing, on the loop thread: tid made call nr
 * with first argument arg0 (a sched_setaffinity of another task stops
 * binding until tid is seen again). */
void cpubind_note_call(pid_t tid, int nr, uint64_t arg0);
/* tid is at a ptrace stop. */
void cpubind_task_seen(pid_t tid);
/* tid has ended. */
void cpubind_task_gone(pid_t tid);
/* The thread former exec'd and took the leader's tid. */
void cpubind_task_renamed(pid_t former, pid_t tid);
/* parent created tid (its ptrace event); started: tid's first stop was
 * seen before (cpubind_first_stop() was called for it). */
void cpubind_new_task(pid_t parent, pid_t tid, bool started);
/* The first stop of a task whose creator's event has not been seen. */
void cpubind_first_stop(pid_t tid);

/* ------------------------------------------------------------------ */
/* Notifications (notify.c).                                           */

/* Receive and handle one notification.  Returns 0, or -errno on a fatal
 * listener error. */
int notify_handle_one(struct sup *s, struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp);

/* Shared by notify.c and net.c (the trusted path). */
/*
 * The event loop is about to sleep: the next caller's notification wakes
 * it on the caller's CPU again (see notify_send_resp()).
 */
void notify_wake_idle(struct sup *s);
int notify_send_resp(struct sup *s, uint64_t id, int64_t val, int err,
		     bool cont);
bool notify_id_valid(struct sup *s, uint64_t id);
/* Install our fd in the caller of notification id (not answering it):
 * its number there, or -errno. */
int notify_add_fd(struct sup *s, uint64_t id, int fd, bool cloexec);
/* Record the call, then reply (CONTINUE when cont). */
int notify_finish(struct sup *s, struct call *c, bool cont);
/* Record a call before the change it allows is made; 0 or -EIO. */
int notify_record_before_change(struct sup *s, struct call *c);
/* Security: a rename or removal of path r of call c that would move a
 * directory above the trail is refused (sysgate:audit-trail): true and
 * *v set. */
bool notify_trail_dir_guard(const struct sup *s, const struct call *c,
			    const struct resolved *r, struct rules_verdict *v);
/* Checks no policy can switch off; true when they decided (deny). */
bool notify_builtin_check(struct sup *s, const struct resolved *r,
			  unsigned access, struct rules_verdict *v);
void notify_verdict_builtin(struct rules_verdict *v, const char *rule, int err);
int notify_caller_umask(struct call *c);
/* connect, bind, sendto, sendmsg, sendmmsg (net.c). */
int net_handle(struct sup *s, struct call *c);
/* socket, setsockopt, listen, accept, allowed by their own rules: true
 * when the network rules decide them too (an odd socket, a route option,
 * any listen) or the supervisor carries them out (accept, to record the
 * peer), which net_scalar does, then answers. */
bool net_scalar_decides(const struct call *c);
int net_scalar(struct sup *s, struct call *c);

/* ------------------------------------------------------------------ */
/* SysV IPC (sysv.c): the tree's objects, made by the supervisor.      */

/* shmget, shmat, shmctl, msg*, sem* (not shmdt: an address of its own). */
bool sysv_is_call(int nr);
/* Before the rules: 1 when c acts on an object the tree did not make
 * (c->v is then a built-in refusal), 0 when the rules decide it. */
int sysv_check(struct call *c);
/* After the rules allowed c: 1 when the supervisor carried it out (a
 * get: c holds its result or error, or a built-in refusal), 0 when it
 * may continue.  The event loop's thread only. */
int sysv_allowed(struct sup *s, struct call *c);
/* Remove every object the tree made and still has; how many. */
unsigned sysv_end_of_run(void);

/* --user: give the event loop's thread its own credentials back, if it
 * holds a caller's (kept from one call to the next): called before any
 * work of the supervisor's own. */
void notify_creds_release(void);

/* Handle a notification already received (ask.c re-runs answered ones). */
int notify_handle_req(struct sup *s, struct seccomp_notif *req);

/* action = ask (ask.c).  ask_resolve: the verdict is RULES_ASK; answer it
 * from memory or from the answer at hand (0: c->v is now allow or deny),
 * or put the question on a thread (1: the notification stays pending and
 * the handler returns without replying).  The loop polls ask_fd() and
 * calls ask_dispatch, which decides answered calls again. */
int ask_init(void);
int ask_fd(void);
int ask_resolve(struct sup *s, struct call *c);
void ask_dispatch(struct sup *s, struct seccomp_notif *req);

/* Exec verification at PTRACE_EVENT_EXEC (notify.c, shares the checks). */
void notify_exec_event(struct sup *s, struct proc *p, pid_t former_tid);

/* ------------------------------------------------------------------ */
/* Recording (record.c).                                               */

#define CALL_MAX_PATHS 2

struct call_path {
	const char *arg_name;  /* "path", "oldpath", ... */
	size_t raw_len;
	bool have_raw;
	bool have_resolved;
	unsigned access;
	struct rules_verdict v;
	bool checked;
	bool redirected;
	/* redirected: the rule that did it (its name, from the set), and
	 * the length of its redirect, the start of redirect[] that the
	 * path must stay under. */
	const char *rewrite_by;
	size_t redirect_base;
	/* The path the supervisor wrote in a restarted call's registers
	 * (c->expect_path). */
	bool expected;
	/* No path: the call acts on the open file its fd names (fchmod,
	 * fsetxattr, futimens, ...), resolved as AT_EMPTY_PATH. */
	bool fd_form;
	/* The buffers last (call_init() clears what comes before them). */
	char raw[PATH_MAX];    /* as the program passed it (copied) */
	char resolved[PATH_MAX];
	/* action = rewrite: the path the call is carried out on instead
	 * (absolute), and the canonical path the caller named. */
	char redirect[PATH_MAX];
	char from[PATH_MAX];
};

/* One notified call, with everything copied out of the tracee. */
struct call {
	const struct seccomp_notif *req;
	const struct rules_syscall_info *info;
	const char *name;      /* syscall name */
	int match_nr;          /* the call its paths are decided as (an
				* ioctl that changes a file's attributes:
				* fchmod), 0: its own */
	pid_t tid, tgid;
	const char *exe;
	struct call_path paths[CALL_MAX_PATHS];
	unsigned n_paths;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool have_addr;
	int domain;            /* network calls: the socket's own family
				* (SO_DOMAIN), 0: not known */
	struct rules_verdict v; /* the deciding (strictest) verdict */
	int err;               /* positive errno returned, 0 if none */
	int64_t result;        /* value returned on success */
	bool have_result;
	bool emulated;
	uint64_t pre_seq;      /* seq of the record written before a change
				* was made (0: none); the result follows in a
				* syscall.result record */
	bool pending;          /* being recorded before the change is made */
	uint64_t open_flags;   /* open family: the flags asked for */
	const struct creds *creds; /* --user: the caller's, for threads */
	const char *decided_by; /* action = ask: who answered */
	const char *note;      /* extra explanation ("path swapped at exec") */
	/* action = rewrite: the call was rewritten and decided again. */
	bool rewritten;
	const char *rewrite_rule;
	uint64_t orig_args[6];     /* the caller's own arguments */
	struct seccomp_notif rw_req; /* the notification as rewritten */
	struct sockaddr_storage rw_addr; /* connect/send: where it goes */
	socklen_t rw_addr_len;
	bool have_rw_addr;
	const struct stack_trace *stack; /* stack = yes: the caller's stack
				* (borrowed from its process entry, copied
				* into a call_job) */
	/* A call restarted by regs.c with a new path: the path it must
	 * name (borrowed from the edit), and in which argument. */
	const char *expect_path;
	int expect_arg;
	size_t expect_base;	/* the redirect's target in expect_path */
	/* An inet bind (or a listen's bind) made: the address the socket
	 * got (getsockname), the port the kernel chose for port 0. */
	struct sockaddr_storage bound;
	socklen_t bound_len;
	bool have_bound;
	/* A datagram sent to port 53 that is a DNS query: its question. */
	struct dns_query dns;
	bool have_dns;
};

/*
 * A call finished on a worker thread (a blocking FIFO open, connect or
 * send): its own copies of what later turns of the loop may change (the
 * caller's exe name, the notification, --user credentials).  Embedded
 * first in each job.  call_job_init copies c; call_job_start runs fn(j)
 * on a detached thread (0 or -errno: then the job is still the caller's);
 * on the thread, call_job_enter takes the caller's credentials (-EPERM if
 * it cannot: the call must fail), which the thread keeps after the job
 * (the next job of the same caller switches nothing); call_job_leave
 * marks the end of the part done as the caller.
 */
struct call_job {
	struct sup *s;
	struct call c;
	char exe[PATH_MAX];
	struct seccomp_notif req;
	struct creds creds;
	bool have_creds;
	struct stack_trace stack; /* the call's stack, when it has one */
};
void call_job_init(struct call_job *j, struct sup *s, const struct call *c);
int call_job_start(struct call_job *j, void *(*fn)(void *));
int call_job_enter(struct call_job *j);
void call_job_leave(struct call_job *j);

/* The outcome of a call carried out by the supervisor: a value, or
 * -errno. */
static inline void call_result(struct call *c, int64_t rc)
{
	if (rc < 0) {
		c->err = (int)-rc;
	} else {
		c->result = rc;
		c->have_result = true;
	}
}

/* The action and rule a call is recorded with: a rewritten call that was
 * allowed as rewritten is a rewrite by the rule that rewrote it. */
static inline enum rules_action call_action(const struct call *c)
{
	return c->rewritten && c->v.action == RULES_ALLOW ? RULES_REWRITE :
							     c->v.action;
}

static inline const char *call_rule(const struct call *c)
{
	return c->rewritten && c->v.action == RULES_ALLOW ? c->rewrite_rule :
							     c->v.rule;
}

/* regs.c: rewrite a call the kernel runs in the caller's registers.
 * regs_rewrite answers the notification c so that the caller stops and
 * restarts the call with its argument registers set to set[] (c->orig_args
 * are the caller's own), and, when arg >= 0, argument arg pointing at a
 * copy of path; from (may be NULL) is what the call named, for the
 * record; the restarted call's path must resolve under the first base
 * bytes of path (the redirect's target; 0: anywhere).  0 (the
 * notification is answered; the restarted call comes
 * again) or -errno (nothing done: the caller must answer).
 * regs_edited_call: is c that restarted call?  Then it is marked
 * rewritten by its rule, with the caller's own arguments in orig_args.
 * regs_on_stop: at each ptrace stop of p, returns how to resume it
 * (PTRACE_CONT or PTRACE_SYSCALL).  regs_forget: p is gone. */
struct regs_edit;
int regs_rewrite(struct sup *s, struct call *c, struct proc *p,
		 const uint64_t set[6], int arg, const char *path,
		 const char *from, size_t base);
bool regs_edited_call(struct proc *p, struct call *c);
long regs_on_stop(struct proc *p, int event, int sig);
void regs_forget(struct proc *p);
/* regs_signal_stop: at tid's signal-delivery stop, a notified call the
 * kernel withdrew for the signal is restarted when it never fails with
 * EINTR natively. */
void regs_signal_stop(pid_t tid);

/* Write the call's record (before the reply).  0 or -errno: on failure the
 * caller must fail closed.  *seq (may be NULL) gets the record's seq, when
 * the call is recorded. */
int record_call(struct sup *s, const struct call *c, uint64_t *seq);
/* The result of a call recorded before its change was made. */
int record_result(struct sup *s, const struct call *c);
int record_run_start(struct sup *s);
int record_run_end(struct sup *s, int exit_status);
int record_fork(struct sup *s, pid_t pid, pid_t ppid, pid_t tgid, const char *kind);
/* proc.exec: path (the executable) and the argv of img (borrowed). */
int record_exec(struct sup *s, struct proc *p, const char *path,
		const struct exec_image *img);
/* Read the kernel's core_pattern (before the tree starts). */
void record_load_core_pattern(void);
int record_exit(struct sup *s, struct proc *p, int status);
int record_signal(struct sup *s, struct proc *p, int sig);
int record_exec_violation(struct sup *s, struct proc *p, const char *why,
			  const char *path);
void record_summary(struct sup *s, int exit_status);
/* A resource limit was reached: which, its value, and what was done. */
int record_limit(struct sup *s, struct proc *p, enum rules_limit which,
		 uint64_t value, const char *action);
/* A denied call: its line on --denials-fd (seq: its record's, 0 when it
 * has none) and its place in the end-of-run summary. */
void record_note_denial(struct sup *s, const struct call *c, uint64_t seq);

/* The files the run wrote (written.c).  written_note_call: c, recorded
 * as seq, wrote to its paths (any thread).  written_record_all: once the
 * tree is gone, a file.final record per file, in the order first
 * written; 0 or the audit error.  written_dropped: files not followed
 * (past the cap, or no memory). */
void written_note_call(const struct call *c, uint64_t seq);
int written_record_all(struct sup *s);
unsigned long written_dropped(void);
/* The ask hook's question about c (what: describe()'s words), as one JSON
 * line: the fields of c's trail record, "call", "argv" and "cwd", after
 * seq (the trail's last), ts and run.  A new string (the caller frees
 * it), or NULL. */
char *record_question(struct sup *s, const struct call *c, const char *what);

/* s as text safe for a terminal (audit_escape_tty()), in buf, cut to
 * len; returns buf.  For every tracee string sysgate prints. */
const char *record_tty(char *buf, size_t len, const char *s);

/* Format flags of the open family ("O_WRONLY|O_CREAT"). */
void record_open_flags(char *buf, size_t len, uint64_t flags);

/* Monotonic microseconds. */
uint64_t sup_now_us(void);

#endif
