/* SPDX-License-Identifier: MIT */
/* Tracee memory, files and credentials (tracee.c). */
#ifndef SYSGATE_SUPERVISOR_TRACEE_H
#define SYSGATE_SUPERVISOR_TRACEE_H

#include <assert.h>
#include <signal.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc;

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
/* The threading contract (notify.c): a function only the event loop may
 * call starts with this. */
static inline void assert_loop_thread(void)
{
	assert(tracee_on_main_thread());
}
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
/* p leaves the process table: its pidfd is closed (procs_on_forget()). */
void tracee_forget(struct proc *p);

#endif
