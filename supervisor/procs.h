/* SPDX-License-Identifier: MIT */
/* The process table (procs.c): one entry per traced task (thread). */
#ifndef SYSGATE_SUPERVISOR_PROCS_H
#define SYSGATE_SUPERVISOR_PROCS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/decode.h"

struct creds;
struct regs_edit;
struct stack_trace;

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
			      * (callercreds.c) ... */
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

/*
 * A module that keeps part of a task's state in struct proc gives it back
 * in its forget function, registered once before the tree starts
 * (loop.c, register_task_state()).  procs_del() calls each, in the order
 * registered, then frees the entry and what the table itself keeps (exe,
 * argv): the table frees no other module's state.  0, or -ENOSPC.
 */
typedef void (*procs_forget_fn)(struct proc *p);
int procs_on_forget(procs_forget_fn fn);

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

#endif
