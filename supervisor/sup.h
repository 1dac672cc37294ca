/* SPDX-License-Identifier: MIT */
/* The supervisor's state, one per run (loop.c). */
#ifndef SYSGATE_SUPERVISOR_SUP_H
#define SYSGATE_SUPERVISOR_SUP_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/seccomp.h>

#include "common/seccomp-compat.h"
#include "rules/rules.h"
#include "supervisor/cgroup.h"
#include "supervisor/cpubind.h"
#include "supervisor/supervisor.h"

struct audit_writer;
struct output;

struct denial {
	char verb[32];
	char what[256];
	char exe[64];
	char rule[64];
	unsigned count;
	bool would;	/* permissive: a call the policy would deny */
};

#define SUP_MAX_DENIALS 256

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

/* The run: what it is and how it was asked for. */
struct sup_run {
	const struct supervisor_opts *opts;
	const struct rules_set *rules;
	pid_t self;               /* the supervisor's pid */
	bool sealed;              /* made non-dumpable (seal()) */
	uint64_t start_us;
	bool as_caller;           /* --user: emulate with the caller's
				   * credentials */
	char *const *env_dropped; /* names [env] dropped (run.start) */
};

/* Where the run writes: the trail and the side outputs. */
struct sup_out {
	struct audit_writer *audit;
	struct output *output;    /* the command's output kept (output.h) */
	int denials_fd;           /* --denials-fd, -1: none */
};

/* What the tree may not touch: the trail, the run's own files, the state
 * directories. */
struct sup_guards {
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
};

/* The command: its first process and how it started and ended. */
struct sup_cmd {
	pid_t child;              /* the command's first process */
	struct cpubind child_bind; /* it on our CPU until its exec (loop.c) */
	int child_status;         /* wait status of the command, -1 until known */
	bool child_execd;         /* the command's first exec succeeded */
	int first_exec_err;       /* errno of a denied first exec */
	const char *first_exec_rule;
};

/* The counters and the end-of-run summary. */
struct sup_tally {
	uint64_t counts[5];       /* per rules_action */
	uint64_t would_denied;    /* permissive: allowed, the policy refuses */
	uint64_t notifications;
	struct denial denials[SUP_MAX_DENIALS];
	unsigned n_denials;
	unsigned long denials_dropped;
	bool failed;              /* a failure of sysgate itself: exit 125 */
	char fail_msg[256];
	unsigned ipc_removed;     /* SysV objects of the tree removed at
				   * the end of the run (sysv.c) */
};

/* [limits] and what enforcing them keeps. */
struct sup_limits {
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
};

/* The event loop's own: its descriptors and how it wakes. */
struct sup_loop {
	int listener;             /* seccomp user-notification fd */
	int sigfd;
	struct seccomp_notif_sizes sizes;
	bool sync_wake;           /* the kernel has SYNC_WAKE_UP ... */
	bool sync_on;             /* ... and the listener has it now */
	pid_t last_caller;        /* tid of the last notification */
	uint64_t caller_switch;   /* notifications when it changed */
};

struct sup {
	struct sup_run run;
	struct sup_out out;
	struct sup_guards guard;
	struct sup_cmd cmd;
	struct sup_tally tally;
	struct sup_limits lim;
	struct sup_loop loop;
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

#endif
