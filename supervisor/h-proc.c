/* SPDX-License-Identifier: MIT */
/*
 * Processes and signals: what a call aims at must be of the traced tree
 * (signals, process groups, another task's memory, limits, scheduling),
 * fork under [limits] processes, and the core size limit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

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

	if (pg == s->cmd.child || procs_find(pg))
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

/*
 * What a call aims at: the task target (0: none), or ok decided from its
 * arguments alone.  is_signal: a signal, which a zombie of the tree may be
 * sent (nothing happens); anything else at a zombie fails with ESRCH.
 */
struct aim {
	pid_t target;
	bool ok;
	bool is_signal;
};

/* Each returns -1 to judge aim (outside_tree()), or outside_tree()'s own
 * answer. */
typedef int (*aim_fn)(struct sup *s, struct call *c, struct aim *aim);

static pid_t arg_pid(const struct call *c, int idx)
{
	return (pid_t)(int32_t)c->req->data.args[idx];
}

static int aim_kill(struct sup *s, struct call *c, struct aim *aim)
{
	pid_t pid = arg_pid(c, 0);

	if (pid > 0)
		aim->target = pid;
	else if (pid == 0)
		aim->ok = true;	/* the caller's own group: a tree group */
	else if (pid == -1)
		aim->ok = false;	/* every process the caller may signal */
	else
		aim->ok = tree_pgrp(s, -pid);
	return -1;
}

/* tkill, rt_sigqueueinfo: the task in arg 0. */
static int aim_task0(struct sup *s, struct call *c, struct aim *aim)
{
	(void)s;
	aim->target = arg_pid(c, 0);
	return -1;
}

/* tgkill, rt_tgsigqueueinfo: the task in arg 1. */
static int aim_task1(struct sup *s, struct call *c, struct aim *aim)
{
	(void)s;
	aim->target = arg_pid(c, 1);
	return -1;
}

/* Another process's memory, read or written; limits, scheduling and NUMA
 * placement of a task named by pid (0: the caller; prlimit64 can kill:
 * RLIMIT_CPU of 0): the task in arg 0, not a signal.  process_vm_*: pid
 * 0 names none, the kernel's error. */
static int aim_task0_other(struct sup *s, struct call *c, struct aim *aim)
{
	(void)s;
	aim->is_signal = false;
	aim->target = arg_pid(c, 0);
	return -1;
}

/* pidfd_send_signal, and (not signals) process_madvise: advice on the
 * memory of the process a pidfd names (root's CAP_SYS_NICE can page out
 * any process); process_mrelease: its memory reaped while it is being
 * killed; pidfd_getfd: one of its files taken. */
static int aim_pidfd(struct sup *s, struct call *c, struct aim *aim)
{
	int fd = caller_fd(c, c->req->data.args[0]);

	(void)s;
	aim->is_signal = c->req->data.nr == SYS_pidfd_send_signal;
	if (fd >= 0) {
		pid_t to = tracee_pidfd_pid(fd);

		close(fd);
		/* -1: it has exited; the kernel answers ESRCH.  A
		 * pidfd names its process: no pid reuse here. */
		aim->ok = to == -1 || to == -EBADF ||
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
	if (aim->ok && tracee_files_shared(c->tid)) {
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
	if (aim->ok)
		tracee_fd_call_continued(c->tid);
	return -1;
}

static int aim_setpgid(struct sup *s, struct call *c, struct aim *aim)
{
	pid_t pid = arg_pid(c, 0);
	pid_t who = pid ? pid : c->tgid;
	pid_t pg = arg_pid(c, 1);

	aim->ok = in_tree(who) && (pg == 0 || pg == who || tree_pgrp(s, pg));
	return -1;
}

/* kcmp compares the files, memory and the like of two tasks: both
 * of the tree (what an outsider holds is none of its business). */
static int aim_kcmp(struct sup *s, struct call *c, struct aim *aim)
{
	(void)s;
	aim->is_signal = false;
	aim->target = arg_pid(c, 0);
	switch (signal_target(arg_pid(c, 1))) {
	case TARGET_TREE:
		break;
	case TARGET_OUTSIDE:
		aim->ok = false;
		aim->target = 0;
		break;
	case TARGET_GONE:
	case TARGET_ZOMBIE:
		/* Not continued: its pid may be reused. */
		c->err = ESRCH;
		c->note = "no such process";
		return 2;
	}
	return -1;
}

/* ptrace: the target is arg1 (PTRACE_TRACEME names none: it makes
 * the parent the tracer, and every task has one already). */
static int aim_ptrace(struct sup *s, struct call *c, struct aim *aim)
{
	(void)s;
	aim->is_signal = false;
	if (c->req->data.args[0] != 0 /* PTRACE_TRACEME */)
		aim->target = arg_pid(c, 1);
	return -1;
}

/* setpriority, ioprio_set: by "which" and "who": a task, a process group
 * (who 0: the caller, its group) or every process of a user. */
static int aim_prio(struct sup *s, struct call *c, struct aim *aim)
{
	bool prio = c->req->data.nr == SYS_setpriority;
	int which = (int)arg_pid(c, 0) - (prio ? 0 : 1);
	pid_t who = arg_pid(c, 1);

	aim->is_signal = false;
	if (which == 0)			/* PRIO_PROCESS, IOPRIO_WHO_PROCESS */
		aim->target = who;
	else if (which == 1)		/* PRIO_PGRP, IOPRIO_WHO_PGRP */
		aim->ok = who == 0 || tree_pgrp(s, who);
	else if (which == 2)		/* PRIO_USER, IOPRIO_WHO_USER */
		aim->ok = false;
	return -1;
}

static const struct {
	int nr;
	aim_fn fn;
} aims[] = {
	{ SYS_kill, aim_kill },
	{ SYS_tkill, aim_task0 },
	{ SYS_rt_sigqueueinfo, aim_task0 },
	{ SYS_tgkill, aim_task1 },
	{ SYS_rt_tgsigqueueinfo, aim_task1 },
	{ SYS_pidfd_send_signal, aim_pidfd },
	{ SYS_process_madvise, aim_pidfd },
	{ SYS_process_mrelease, aim_pidfd },
	{ SYS_pidfd_getfd, aim_pidfd },
	{ SYS_setpgid, aim_setpgid },
	{ SYS_kcmp, aim_kcmp },
	{ SYS_process_vm_readv, aim_task0_other },
	{ SYS_process_vm_writev, aim_task0_other },
	{ SYS_ptrace, aim_ptrace },
	{ SYS_migrate_pages, aim_task0_other },
	{ SYS_move_pages, aim_task0_other },
	{ SYS_prlimit64, aim_task0_other },
	{ SYS_sched_setaffinity, aim_task0_other },
	{ SYS_sched_setscheduler, aim_task0_other },
	{ SYS_sched_setparam, aim_task0_other },
	{ SYS_sched_setattr, aim_task0_other },
	{ SYS_setpriority, aim_prio },
	{ SYS_ioprio_set, aim_prio },
};

/* Returns 0 to go on deciding, 1 when the call is denied (verdict set),
 * 2 when it is answered here (err or result set). */
int outside_tree(struct sup *s, struct call *c)
{
	struct aim aim = { .target = 0, .ok = true, .is_signal = true };
	aim_fn fn = NULL;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(aims) && !fn; i++)
		if (aims[i].nr == c->req->data.nr)
			fn = aims[i].fn;
	if (!fn)
		return 0;
	r = fn(s, c, &aim);
	if (r >= 0)
		return r;
	if (aim.target > 0) {
		switch (signal_target(aim.target)) {
		case TARGET_TREE:
			return 0;
		case TARGET_GONE:
			c->err = ESRCH;
			c->note = "no such process";
			return 2;
		case TARGET_ZOMBIE:
			if (!aim.is_signal) {
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
			aim.ok = false;
			break;
		}
	}
	if (aim.ok)
		return 0;
	notify_verdict_builtin(&c->v, "sysgate:outside-tree", EPERM);
	return 1;
}

bool is_fork(int nr)
{
	return nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone;
}

/*
 * [limits] processes: live tasks (processes and threads) of the tree,
 * counted from ptrace events, plus forks let through whose new task has
 * not been seen yet.  The fork that would exceed fails with EAGAIN, as
 * RLIMIT_NPROC would make it.
 */
bool fork_over_limit(struct sup *s, struct call *c)
{
	uint64_t live;

	if (!s->lim.max_tasks || !is_fork(c->req->data.nr))
		return false;
	live = (uint64_t)procs_count() + s->lim.forks_inflight;
	if (live < s->lim.max_tasks)
		return false;
	notify_verdict_builtin(&c->v, "sysgate:limit", EAGAIN);
	c->note = "[limits] processes reached";
	if (record_limit(s, procs_find(c->tid), RULES_LIMIT_PROCESSES,
			 s->lim.max_tasks, "fork refused with EAGAIN") < 0)
		sup_fail(s, "cannot write the audit trail");
	return true;
}

/*
 * fcntl(F_SETOWN, F_SETOWN_EX) and ioctl(FIOSETOWN, SIOCSPGRP) name who
 * gets SIGIO (or the F_SETSIG signal) from a file: only the tree.  Returns
 * -1 when c is no such call, else the call is decided and answered.
 */
int owner_call(struct sup *s, struct call *c)
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
	rules_match(s->run.rules, &ev, &c->v);
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
 * Security: a raise of the tree's core size limit, which launch.c sets to
 * 0 (soft and hard), is refused and recorded: a core dump is a file the
 * kernel writes past every rule.  The kernel would refuse a raise of the
 * hard limit itself (the tree lacks CAP_SYS_RESOURCE) and a soft limit
 * above it, so a buffer changed after this copy gains nothing; this check
 * is what puts the attempt in the trail.  True when c is refused.
 */
bool core_limit_raised(struct call *c)
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
