/* SPDX-License-Identifier: MIT */
/*
 * The event loop: one thread polls the seccomp listener and a signalfd
 * (SIGCHLD and the signals passed on to the tree), never blocking in
 * waitpid.  ptrace events keep the process table: forks, clones, execs,
 * exits and signals of every task of the tree.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <grp.h>
#include <termios.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "audit/audit.h"
#include "audit/syslog.h"
#include "common/util.h"
#include "rules/prebuilt.h"
#include "supervisor/ask.h"
#include "supervisor/cgroup.h"
#include "supervisor/cpubind.h"
#include "supervisor/dispatch.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/regs.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/supervisor.h"
#include "supervisor/sysv.h"
#include "supervisor/tracee.h"
#include "supervisor/launch.h"
#include "supervisor/output.h"

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

static int seccomp_notify_sizes_get(struct sup *s)
{
	return (int)syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0,
			    &s->loop.sizes);
}

/* How often the tree's cgroup counters are read while a limit needs it. */
#define CGROUP_CHECK_MS 100
/* How long the event loop, kept bound to its CPU for a run of calls
 * (cpubind.c), waits for the next one before it lets the binding go (its
 * own and the caller's). */
#define KEEP_IDLE_US 50

static uint64_t limit_value(struct sup *s, enum rules_limit l)
{
	uint64_t v = 0;

	rules_limit(s->run.rules, l, &v);
	return v;
}

/*
 * Processes the kernel killed at the tree's memory limit (the OOM killer
 * counts a kill before it sends the SIGKILL, so the count is up to date
 * once the victim's death is seen).  p: the process whose SIGKILL death
 * was just seen, or NULL at the end of the run.
 */
static void check_oom(struct sup *s, struct proc *p)
{
	uint64_t n;

	if (cgroup_read(&s->lim.cg, CGROUP_OOM_KILLS, &n) < 0 ||
	    n <= s->lim.oom_seen)
		return;
	s->lim.oom_seen = n;
	if (record_limit(s, p, RULES_LIMIT_MEMORY,
			 limit_value(s, RULES_LIMIT_MEMORY),
			 "process killed by the kernel (out of memory in the tree's cgroup)") < 0)
		sup_fail(s, "cannot write the audit trail");
}

/* Forks that the kernel refused at pids.max (the supervisor's own count
 * refuses first, save for tasks it no longer counts: zombies waiting for
 * their parent). */
static void check_pids(struct sup *s)
{
	uint64_t n;

	if (cgroup_read(&s->lim.cg, CGROUP_PIDS_REFUSED, &n) < 0 ||
	    n <= s->lim.pids_refused_seen)
		return;
	s->lim.pids_refused_seen = n;
	if (record_limit(s, NULL, RULES_LIMIT_PROCESSES, s->lim.max_tasks,
			 "fork refused with EAGAIN by the kernel (pids.max)") < 0)
		sup_fail(s, "cannot write the audit trail");
}

/* [limits] cpu through the cgroup: the CPU time of the whole tree. */
static void check_cpu(struct sup *s)
{
	uint64_t us;

	if (!s->lim.cpu_limit_ms || s->lim.cpu_hit ||
	    cgroup_read(&s->lim.cg, CGROUP_CPU_USAGE_US, &us) < 0 ||
	    us / 1000 < s->lim.cpu_limit_ms)
		return;
	s->lim.cpu_hit = true;
	if (record_limit(s, NULL, RULES_LIMIT_CPU, s->lim.cpu_limit_ms,
			 "the process tree was killed") < 0)
		sup_fail(s, "cannot write the audit trail");
	sup_kill_tree();
}

/* Look at the counters every CGROUP_CHECK_MS; returns the ms until the
 * next look (or timeout when none is needed). */
static int cgroup_tick(struct sup *s, int timeout)
{
	bool cpu = s->lim.cpu_limit_ms && !s->lim.cpu_hit;
	bool pids = cgroup_via(&s->lim.cg, CGROUP_PIDS) != CGROUP_NONE;
	uint64_t now;

	if (!cpu && !pids)
		return timeout;
	now = sup_now_us();
	if (now >= s->lim.next_cg_check_us) {
		notify_creds_release();
		s->lim.next_cg_check_us = now + CGROUP_CHECK_MS * 1000;
		if (cpu)
			check_cpu(s);
		if (pids)
			check_pids(s);
	}
	if ((s->lim.next_cg_check_us - now) / 1000 < (uint64_t)timeout)
		timeout = (int)((s->lim.next_cg_check_us - now) / 1000) + 1;
	return timeout;
}

struct fwd {
	int sig;
};

/*
 * The signals the loop reads from its signalfd: SIGCHLD, and every signal
 * whose default action would end sysgate and that a process can catch
 * (but the faults, SIGSEGV and the like, which are sysgate's own).  Each
 * but SIGCHLD is passed on to the tree, which decides; sysgate ends when
 * the tree does, with run.end written, never in the middle of a call.
 * glibc's own real-time signals (below SIGRTMIN) are left alone.
 */
void sup_signal_mask(sigset_t *mask)
{
	static const int sigs[] = {
		SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
		SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT,
	};

	sigemptyset(mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(mask, sigs[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(mask, sig);
}

static void forward_one(struct proc *p, void *arg)
{
	const struct fwd *f = arg;

	if (p->tid == p->tgid && !p->exited)
		kill(p->tgid, f->sig);
}

/*
 * Causal order of a task's records.  The kernel reports a new task's first
 * stop, and even its exit, and its creator's FORK/VFORK/CLONE event in
 * either order (PLATFORM.md 3(e)).  A task first seen before its creator's
 * event gets its proc.fork at once, from /proc (early_fork()), so that
 * nothing of it comes before its fork; a task that ended before anything
 * of it was seen has its exit kept until its creator's event, which then
 * records the fork and the exit.  Either way the tid is noted here, and
 * the creator's event, finding it, records no second proc.fork.
 *
 * Owned by the loop's thread (the only one that reaps).  A multiset: a
 * tid noted twice (reused after an exit) is taken twice.
 */
struct early {
	pid_t tid;
	int status;	/* its wait status if it ended unseen, else -1 */
};
static struct early *early;
static size_t n_early, cap_early;

static int early_note(pid_t tid, int status)
{
	if (n_early == cap_early) {
		size_t cap = cap_early ? 2 * cap_early : 16;
		struct early *e = reallocarray(early, cap, sizeof(*e));

		if (!e)
			return -ENOMEM;
		early = e;
		cap_early = cap;
	}
	early[n_early++] = (struct early){ .tid = tid, .status = status };
	return 0;
}

/* Was tid noted?  Then forget it, and *status gets its note. */
static bool early_take(pid_t tid, int *status)
{
	for (size_t i = 0; i < n_early; i++) {
		if (early[i].tid != tid)
			continue;
		*status = early[i].status;
		early[i] = early[--n_early];
		return true;
	}
	return false;
}

/* The state, parent (real_parent's tgid) and exit signal of tid, from
 * /proc/TID/stat (fields 3, 4 and 38).  Returns 0 or -errno. */
static int stat_parent(pid_t tid, char *state, pid_t *ppid, int *exit_signal)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;
	int fd, field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	/* The name (field 2) may hold anything but ends at the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	while (*p && field < 38) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EIO;
		if (++field == 3)
			*state = p[1];
		else if (field == 4)
			*ppid = (pid_t)strtol(p + 1, NULL, 10);
	}
	*exit_signal = (int)strtol(p + 1, NULL, 10);
	return 0;
}

/* Is tid a task that has not ended (not a zombie)?  An exit noted for a
 * tid now alive was another task's: the tid was reused. */
static bool task_lives(pid_t tid)
{
	char state = 'X';
	pid_t ppid = 0;
	int xsig = 0;

	return stat_parent(tid, &state, &ppid, &xsig) == 0 && state != 'Z' &&
	       state != 'X';
}

/*
 * The first stop of a task whose creator's event has not been seen: its
 * proc.fork now, from what /proc says (the parent: the thread group, or
 * the real parent; the kind: thread, clone for an exit signal other than
 * SIGCHLD, vfork for a child sharing its parent's memory, else fork).
 */
static void early_fork(struct sup *s, struct proc *p)
{
	const char *kind = "thread";
	pid_t ppid = p->tgid;
	int xsig = SIGCHLD;
	char state;

	if (p->tgid == p->tid) {
		ppid = 0;
		stat_parent(p->tid, &state, &ppid, &xsig);
		kind = xsig != SIGCHLD ? "clone" :
		       ppid > 0 && syscall(SYS_kcmp, ppid, p->tid, KCMP_VM,
					   0, 0) == 0 ? "vfork" : "fork";
	}
	p->ppid = ppid;
	if (early_note(p->tid, -1) < 0) {
		sup_fail(s, "out of memory for the process table");
		return;
	}
	if (record_fork(s, p->tid, ppid, p->tgid, kind) < 0)
		sup_fail(s, "cannot write the audit trail");
}

/*
 * The creator's event of a task noted early: no second proc.fork.  A task
 * still here inherits what on_new_task() would give it; one that ended
 * unseen (status >= 0) gets its fork and its exit now, in that order.
 */
static void late_fork(struct sup *s, struct proc *parent, pid_t ntid,
		      pid_t ntgid, const char *kind, bool same_root, int status)
{
	struct proc *np = procs_find(ntid);

	if (status < 0) {
		if (!np)
			return;	/* it has come and gone: all recorded */
		cpubind_new_task(parent->tid, ntid, np->attached);
		np->ppid = parent->tgid;
		if (same_root)
			resolve_inherit_root(np, parent);
		if (!np->exe && parent->exe)
			procs_set_exe(np, parent->exe);
		return;
	}
	np = procs_add(ntid, ntgid, parent->tgid);
	if (!np) {
		sup_fail(s, "out of memory for the process table");
		return;
	}
	if (record_fork(s, ntid, parent->tgid, ntgid, kind) < 0 ||
	    record_exit(s, np, status) < 0)
		sup_fail(s, "cannot write the audit trail");
	procs_del(ntid);
}

static void on_new_task(struct sup *s, struct proc *parent, int event)
{
	unsigned long msg = 0;
	pid_t ntid;
	pid_t ntgid;
	const char *kind;
	struct proc *np;
	struct user_regs_struct regs;
	bool got, same_root;
	int ended;

	if (parent->fork_inflight) {
		parent->fork_inflight = false;
		s->lim.forks_inflight--;
	}
	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0, &msg) < 0)
		return;
	ntid = (pid_t)msg;
	got = ptrace(PTRACE_GETREGS, parent->tid, 0, &regs) == 0;
	/* The child has its parent's root unless clone() made it a new
	 * mount namespace (a fork event is also a clone with SIGCHLD). */
	same_root = got && (regs.orig_rax != SYS_clone || !(regs.rdi & CLONE_NEWNS));
	if (event == PTRACE_EVENT_CLONE) {
		/* A process sharing its parent's cwd: cwds are no longer
		 * kept per task (resolve.c). */
		if (!got || ((regs.rdi & CLONE_FS) && !(regs.rdi & CLONE_THREAD)))
			resolve_cwd_shared();
		if (got && (regs.rdi & CLONE_THREAD)) {
			ntgid = parent->tgid;
			kind = "thread";
		} else {
			ntgid = tracee_tgid(ntid);
			if (ntgid <= 0)
				ntgid = ntid;
			kind = ntgid == parent->tgid ? "thread" : "clone";
		}
	} else {
		ntgid = ntid;
		kind = event == PTRACE_EVENT_VFORK ? "vfork" : "fork";
	}
	if (early_take(ntid, &ended) &&
	    (ended < 0 || !task_lives(ntid))) {
		late_fork(s, parent, ntid, ntgid, kind, same_root, ended);
		return;
	}
	np = procs_add(ntid, ntgid, parent->tgid);
	if (!np) {
		sup_fail(s, "out of memory for the process table");
		return;
	}
	/* Created while its creator was kept on our CPU: not for good. */
	cpubind_new_task(parent->tid, ntid, np->attached);
	np->tgid = ntgid;
	np->ppid = parent->tgid;
	if (same_root)
		resolve_inherit_root(np, parent);
	if (!np->exe && parent->exe)
		procs_set_exe(np, parent->exe);
	if (record_fork(s, ntid, parent->tgid, ntgid, kind) < 0)
		sup_fail(s, "cannot write the audit trail");
}

/*
 * Security: not dumpable, so that no process of the same user can ptrace
 * the supervisor or open its /proc files (its listener fd above all).
 * Only once the command's child has its own memory, at its exec stop
 * (before the program runs an instruction) or its end: up to its execve it
 * shares the supervisor's (launch.c), whose dumpable flag it would share,
 * and an unprivileged supervisor could then open none of its /proc files
 * to check that execve.  Until then the tree runs nothing but sysgate's
 * own code.
 */
static void seal(struct sup *s)
{
	if (s->run.sealed)
		return;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
		s->run.sealed = true;
}

static void on_stop(struct sup *s, pid_t pid, int st)
{
	struct proc *p = procs_find(pid);
	int sig = WSTOPSIG(st);
	int event = st >> 16;
	long inject = 0;
	siginfo_t si;

	/* Stopped: past any chdir it was let through (resolve.c). */
	resolve_task_seen(pid);
	cpubind_task_seen(pid);

	if (!p) {
		/* A new task whose creator's event has not been seen yet. */
		pid_t tg = tracee_tgid(pid);

		p = procs_add(pid, tg > 0 ? tg : pid, 0);
		if (!p) {
			sup_fail(s, "out of memory for the process table");
			kill(pid, SIGKILL);
			return;
		}
		/* Before it runs: not a one-CPU mask of a binding. */
		cpubind_first_stop(pid);
		/* Its creator may have died at its clone event: not run
		 * while a call of a task sharing its fd table may still
		 * take an fd by number (tracee.c). */
		tracee_hold_new(p);
		if (tg > 0 && tg != pid) {
			struct proc *leader = procs_find(tg);

			if (leader && leader->exe)
				procs_set_exe(p, leader->exe);
		}
		early_fork(s, p);
	} else {
		tracee_seen(p);	/* any call it was in is over */
	}
	/* stack = yes: any ptrace stop after the interrupt has the
	 * registers of the call that will restart (stack.h). */
	if (p->stack_wanted && (event == PTRACE_EVENT_STOP || event == 0))
		stack_on_stop(p);
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_new_task(s, p, event);
		break;
	case PTRACE_EVENT_EXEC: {
		unsigned long former = 0;

		seal(s);
		/* The command's own mask back before it runs (handoff()). */
		if (s->cmd.child_bind.caller == pid) {
			int r = cpubind_leave(&s->cmd.child_bind);

			if (r < 0)
				fprintf(stderr, "sysgate: warning: the CPU mask of the command (%d) could not be put back (%s); it stays on one CPU\n",
					(int)pid, strerror(-r));
		}

		ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
		/* The exec'ing thread takes the leader's tid. */
		if ((pid_t)former != pid) {
			struct proc *fp = procs_find((pid_t)former);

			cpubind_task_renamed((pid_t)former, pid);
			if (fp && fp->exec && !p->exec) {
				p->exec = fp->exec;
				fp->exec = NULL;
			}
			if (fp)
				tracee_gone(fp);
			procs_del((pid_t)former);
			resolve_forget_root(p);
		}
		/* A new program: new mappings, new unwind tables, a new
		 * address space behind the tid. */
		stack_process_forget(p->tgid);
		tracee_mem_forget();
		notify_exec_event(s, p, pid);
		break;
	}
	case PTRACE_EVENT_STOP:
		if (!p->attached) {
			p->attached = true;
			break;
		}
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			/* A group-stop: stay stopped until SIGCONT. */
			ptrace(PTRACE_LISTEN, pid, 0, 0);
			return;
		}
		break;
	case PTRACE_EVENT_SECCOMP:
		break;
	case 0:
		p->attached = true;
		if (sig == (SIGTRAP | 0x80))
			break;
		inject = sig;
		p->sig.have = false;
		if (tracee_siginfo(pid, &si) == 0)
			decode_sig_note(&si, &p->sig);
		regs_signal_stop(pid);
		if (record_signal(s, p, sig) < 0)
			sup_fail(s, "cannot write the audit trail");
		if (sig == SIGXCPU || sig == SIGXFSZ) {
			enum rules_limit l = sig == SIGXCPU ? RULES_LIMIT_CPU :
							      RULES_LIMIT_FILE_SIZE;
			uint64_t v = 0;

			if (rules_limit(s->run.rules, l, &v) == 0 &&
			    record_limit(s, p, l, v, sig == SIGXCPU ?
					 "SIGXCPU sent to the process" :
					 "SIGXFSZ sent to the process") < 0)
				sup_fail(s, "cannot write the audit trail");
		}
		break;
	default:
		break;
	}
	if (p->held) {
		/* Resumed with its signal once released (tracee.c). */
		p->held_sig = (int)inject;
		return;
	}
	ptrace((enum __ptrace_request)regs_on_stop(p, event, sig), pid, 0,
	       (void *)inject);
}

static void on_exit_status(struct sup *s, pid_t pid, int st)
{
	struct proc *p = procs_find(pid);

	if (pid == s->cmd.child) {
		s->cmd.child_status = st;
		seal(s);	/* it never exec'd */
	}
	if (!p) {
		/* Ended before its first stop and its creator's event were
		 * seen: recorded with its fork, at that event (early). */
		if (early_note(pid, st) < 0)
			sup_fail(s, "out of memory for the process table");
		return;
	}
	if (p->fork_inflight) {
		p->fork_inflight = false;
		s->lim.forks_inflight--;
	}
	p->exited = true;
	/* A leader's end is reported after all its threads'. */
	if (p->tid == p->tgid)
		stack_process_forget(p->tgid);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL &&
	    cgroup_via(&s->lim.cg, CGROUP_MEMORY) != CGROUP_NONE)
		check_oom(s, p);
	if (record_exit(s, p, st) < 0)
		sup_fail(s, "cannot write the audit trail");
	cpubind_task_gone(pid);
	tracee_gone(p);
	procs_del(pid);
}

/* Returns false once no traced task is left. */
static bool reap(struct sup *s)
{
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG | __WALL);

		if (pid == 0)
			return true;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return errno != ECHILD;
		}
		if (WIFSTOPPED(st))
			on_stop(s, pid, st);
		else if (WIFEXITED(st) || WIFSIGNALED(st))
			on_exit_status(s, pid, st);
	}
}

static int run_loop(struct sup *s)
{
	struct seccomp_notif *req = calloc(1, s->loop.sizes.seccomp_notif);
	struct seccomp_notif_resp *resp =
		calloc(1, s->loop.sizes.seccomp_notif_resp);
	struct pollfd pfd[3];
	bool alive = true;

	if (!req || !resp) {
		free(req);
		free(resp);
		sup_fail(s, "out of memory");
		return -ENOMEM;
	}
	pfd[0] = (struct pollfd){ .fd = s->loop.sigfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = s->loop.listener, .events = POLLIN };
	/* Answers of action = ask. */
	pfd[2] = (struct pollfd){ .fd = ask_fd(), .events = POLLIN };
	while (alive) {
		int timeout = AUDIT_SYNC_INTERVAL_MS;
		int n;

		if (s->lim.wall_deadline_us && !s->lim.wall_hit) {
			uint64_t now = sup_now_us();

			if (now >= s->lim.wall_deadline_us) {
				/* [limits] wall: the tree is killed. */
				notify_creds_release();
				s->lim.wall_hit = true;
				if (record_limit(s, NULL, RULES_LIMIT_WALL,
						 (s->lim.wall_deadline_us -
						  s->run.start_us) / 1000,
						 "the process tree was killed") < 0)
					sup_fail(s, "cannot write the audit trail");
				sup_kill_tree();
			} else if ((s->lim.wall_deadline_us - now) / 1000 <
				   (uint64_t)timeout) {
				timeout = (int)((s->lim.wall_deadline_us -
						 now) / 1000) + 1;
			}
		}
		timeout = cgroup_tick(s, timeout);
		{
			/* A kept caller's binding lasts no longer after its
			 * last call while the loop is kept busy by others
			 * (stops, signals) than while it waits. */
			uint64_t since = cpubind_kept_since_us();

			if (since && sup_now_us() - since > KEEP_IDLE_US)
				cpubind_release_self();
		}
		/* With the callers' wake-ups made ordinary (work was
		 * waiting), look before sleeping: SYNC_WAKE_UP goes back on
		 * only when the loop is about to wait. */
		n = s->loop.sync_wake && !s->loop.sync_on ? poll(pfd, 3, 0) : 0;
		if (n == 0) {
			bool kept = cpubind_self_kept();

			notify_wake_idle(s);
			if (kept) {
				/* A run of calls comes in quick succession:
				 * past a short wait the loop's binding to its
				 * CPU is given up (cpubind.c), and the loop
				 * sleeps as usual. */
				struct timespec keep = { 0, KEEP_IDLE_US * 1000 };

				n = ppoll(pfd, 3, &keep, NULL);
				if (n == 0) {
					cpubind_release_self();
					n = poll(pfd, 3, timeout);
				}
			} else {
				n = poll(pfd, 3, timeout);
			}
		}

		if (n < 0 && errno != EINTR) {
			sup_fail(s, "poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN)) {
			int r;

			if (s->tally.failed) {
				/* Fail closed: answer without running. */
				memset(req, 0, s->loop.sizes.seccomp_notif);
				if (ioctl(s->loop.listener,
					  SECCOMP_IOCTL_NOTIF_RECV, req) == 0) {
					struct seccomp_notif_resp rr = {
						.id = req->id, .error = -EPERM,
					};
					ioctl(s->loop.listener,
					      SECCOMP_IOCTL_NOTIF_SEND, &rr);
				}
			} else if ((r = notify_handle_one(s, req, resp)) < 0) {
				sup_fail(s, "seccomp listener: %s", strerror(-r));
			}
			cpubind_call_done();
		} else if (n > 0 && (pfd[1].revents & (POLLHUP | POLLERR))) {
			/* No task uses the filter any more. */
			pfd[1].fd = -1;
		}
		bool chld = n <= 0;	/* a quiet turn: look anyway */

		/*
		 * Security: past this point the loop does work of its own
		 * (stops, exits, signals, answers): with its own credentials,
		 * not those kept from a call (callercreds.c, --user).
		 */
		if (chld || (pfd[0].revents | pfd[2].revents))
			notify_creds_release();
		if (n > 0 && (pfd[2].revents & POLLIN) && !s->tally.failed)
			ask_dispatch(s, req, notify_handle_req);

		if (n > 0 && (pfd[0].revents & POLLIN)) {
			struct signalfd_siginfo si[8];
			ssize_t got = read(s->loop.sigfd, si, sizeof(si));

			for (ssize_t i = 0; got > 0 && i < got / (ssize_t)sizeof(si[0]); i++) {
				int sig = (int)si[i].ssi_signo;

				if (sig == SIGCHLD)
					chld = true;
				if (sig != SIGCHLD) {
					struct fwd f = { sig };

					procs_each(forward_one, &f);
				}
			}
		}
		/* Reap after SIGCHLD (which coalesces: reap() takes every
		 * waiting status) and on quiet turns, not after every call. */
		if (chld)
			alive = reap(s);
		if (audit_tick(s->out.audit) < 0 && !s->tally.failed)
			sup_fail(s, "cannot sync the audit trail");
	}
	notify_creds_release();
	free(req);
	free(resp);
	return 0;
}

/* execvp's search, done before fork so that the child execs once. */
static int find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	bool seen_eacces = false;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t dl = strcspn(path, ":");
		struct stat st;

		if ((int)snprintf(out, len, "%.*s%s%s", (int)dl, path,
				  dl ? "/" : "", name) < (int)len &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			seen_eacces = true;
		}
		path += dl;
		if (*path == ':')
			path++;
	}
	if (seen_eacces)
		return -EACCES;
	return -ENOENT;
}

/* src's variables (borrowed) but TMPDIR and SYSGATE_RUN, then the run's
 * own TMPDIR and SYSGATE_RUN (new strings: free_env()). */
static char **child_env(const struct supervisor_opts *o, char *const *src)
{
	size_t n = 0;
	char **env;
	size_t k = 0;

	while (src[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(src[i], "TMPDIR=", 7) != 0 &&
		    strncmp(src[i], "SYSGATE_RUN=", 12) != 0)
			env[k++] = src[i];
	if (o->tmpdir && asprintf(&env[k], "TMPDIR=%s", o->tmpdir) > 0)
		k++;
	if (asprintf(&env[k], "SYSGATE_RUN=%s", o->run_id) > 0)
		k++;
	env[k] = NULL;
	return env;
}

static int exit_status_of(struct sup *s)
{
	if (s->tally.failed)
		return SUPERVISOR_EXIT_FAILURE;
	if (s->cmd.child_status < 0)
		return SUPERVISOR_EXIT_FAILURE;
	if (WIFSIGNALED(s->cmd.child_status))
		return 128 + WTERMSIG(s->cmd.child_status);
	return WEXITSTATUS(s->cmd.child_status);
}

/*
 * action = rewrite: a redirect of "PREFIX/" "**" sends paths into a
 * directory that must exist before the first call lands in it.  Create it
 * (and missing parents) for the user the tree runs as, mode 0700.
 * 0, or -errno with the directory named in why.
 */
static int make_redirect_dirs(const struct supervisor_opts *opts, char *why,
			      size_t len)
{
	for (size_t i = 0; i < rules_rule_count(opts->rules); i++) {
		const char *dir = rules_rule_redirect_dir(opts->rules, i);
		char buf[PATH_MAX];

		if (!dir)
			continue;
		if (snprintf(buf, sizeof(buf), "%s/", dir) >= (int)sizeof(buf))
			return -ENAMETOOLONG;
		for (char *p = buf + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			if (mkdir(buf, 0700) == 0) {
				if (opts->user && chown(buf, opts->uid, opts->gid) < 0) {
					int e = errno;

					snprintf(why, len, "%s", buf);
					return -e;
				}
			} else if (errno != EEXIST) {
				int e = errno;

				snprintf(why, len, "%s", buf);
				return -e;
			}
			*p = '/';
		}
	}
	return 0;
}

/* A malloc'ed copy of a prebuilt program (launch_start frees it), 0 or
 * -ENOMEM. */
static int copy_prebuilt(const struct rules_prebuilt *pb,
			 struct sock_fprog *prog)
{
	size_t n = pb->len * sizeof(*pb->insns);

	prog->filter = malloc(n);
	if (!prog->filter)
		return -ENOMEM;
	memcpy(prog->filter, pb->insns, n);
	prog->len = pb->len;
	return 0;
}

/*
 * launch_spec.build: the filters, made while the child sets itself up.  The
 * built-in policy's was compiled with sysgate (rules/prebuilt.h); any other
 * policy's is compiled now.  The guard filter is left out (empty) where the
 * policy filter holds its guards, as the built-in policy's does: one filter
 * less to load in the child (~50 us of start-up) and to run at each call
 * that reaches BPF.
 */
static int build_filters(const void *arg, struct sock_fprog *guard,
			 struct sock_fprog *policy)
{
	const struct rules_set *rs = arg;
	int r;

	/* Security: none only where the policy filter holds every guard
	 * itself (test-rules checks it, syscall by syscall). */
	if (rules_filter_has_guards(rs)) {
		*guard = (struct sock_fprog){ 0 };
		r = 0;
	} else {
		r = rules_build_guard_filter(guard);
	}
	if (r < 0)
		return r;
	if (rules_is_builtin_default(rs) && rules_prebuilt_default.len)
		r = copy_prebuilt(&rules_prebuilt_default, policy);
	else
		r = rules_build_filter(rs, policy);
	if (r < 0)
		free(guard->filter);
	return r;
}

/* launch_spec.place: the child into the tree's cgroups. */
static bool place_failed;

static int place_child(pid_t pid, void *arg)
{
	int r = cgroup_attach(arg, pid);

	place_failed = r < 0;
	return r;
}

/*
 * The tree's cgroups for [limits] memory, processes and cpu where they can
 * be made; the rest falls back to rlimits (memory, cpu) or to the
 * supervisor's own count alone (processes).
 */
static void setup_cgroups(struct sup *s)
{
	static const char *const what[CGROUP_NCTRL] = {
		[CGROUP_MEMORY] = "memory",
		[CGROUP_PIDS] = "processes",
		[CGROUP_CPU] = "cpu",
	};
	struct cgroup_want want = {
		.memory_bytes = limit_value(s, RULES_LIMIT_MEMORY),
		.max_tasks = s->lim.max_tasks,
		.cpu = s->lim.cpu_limit_ms > 0,
	};

	cgroup_init(&s->lim.cg);
	if (!want.memory_bytes && !want.max_tasks && !want.cpu)
		return;
	cgroup_setup(&s->lim.cg, s->run.opts->run_id, &want,
		     s->run.opts->note_fd);
	if (s->run.opts->verbosity < SUPERVISOR_VERBOSE)
		return;
	for (unsigned c = 0; c < CGROUP_NCTRL; c++) {
		if (cgroup_path(&s->lim.cg, (enum cgroup_ctrl)c))
			fprintf(stderr, "sysgate: [limits] %s: cgroup %s\n", what[c],
				cgroup_path(&s->lim.cg, (enum cgroup_ctrl)c));
		else if (s->lim.cg.why[c][0])
			fprintf(stderr, "sysgate: [limits] %s: no cgroup (%s)\n",
				what[c], s->lim.cg.why[c]);
	}
}

/* At the end of the run: what the cgroups counted and was not recorded
 * yet. */
static void final_cgroup_checks(struct sup *s)
{
	uint64_t n;

	if (cgroup_via(&s->lim.cg, CGROUP_MEMORY) != CGROUP_NONE) {
		check_oom(s, NULL);
		/* Reached without a kill: the kernel reclaimed memory (page
		 * cache, ...) to keep the tree under the limit. */
		if (!s->lim.oom_seen &&
		    cgroup_read(&s->lim.cg, CGROUP_MEMORY_MAX_HITS, &n) == 0 &&
		    n &&
		    record_limit(s, NULL, RULES_LIMIT_MEMORY,
				 limit_value(s, RULES_LIMIT_MEMORY),
				 "the tree's memory use reached the limit") < 0)
			sup_fail(s, "cannot write the audit trail");
	}
	check_pids(s);
}

/*
 * The command's launch, made ready by supervisor_prepare() before the policy
 * is loaded: the program found, its environment, and the child started, so
 * that its set-up overlaps the supervisor's (start-up time).
 */
static struct {
	bool done;
	int find_err;            /* find_program's error, 0: found */
	bool groups_err;         /* --user: more groups than we keep */
	char prog[PATH_MAX];
	char **env;
	char **env_applied;      /* environ under [env] (rules_env_apply) */
	char **env_dropped;      /* the names it dropped */
	char **policy_env;       /* env_applied for the child: ls.envp */
	int tty;
	pid_t our_pgrp;
	gid_t groups[CREDS_MAX_GROUPS];
	struct launch_spec ls;
	struct launch_child lc;
	struct output *output;   /* until supervisor_run takes it */
	int output_err;
} prep;

static void free_env(char **env)
{
	if (!env)
		return;
	for (char **e = env; *e; e++)
		if (!strncmp(*e, "TMPDIR=", 7) || !strncmp(*e, "SYSGATE_RUN=", 12))
			free(*e);
	free(env);
}

void supervisor_prepare(const struct supervisor_opts *opts)
{
	struct launch_spec *ls = &prep.ls;

	memset(&prep, 0, sizeof(prep));
	prep.done = true;
	prep.lc = (struct launch_child){ .pid = -1, .go = -1, .ready = -1, .pidfd = -1 };
	prep.tty = -1;
	prep.our_pgrp = getpgrp();
	prep.find_err = find_program(opts->argv[0], prep.prog, sizeof(prep.prog));
	prep.env = child_env(opts, environ);
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == prep.our_pgrp)
		prep.tty = STDIN_FILENO;
	{
		mode_t um = umask(0);

		umask(um);
		ls->umask = um;
	}
	ls->path = prep.prog;
	ls->argv = opts->argv;
	ls->envp = prep.env;
	ls->foreground_tty = prep.tty;
	ls->stdout_fd = ls->stderr_fd = -1;
	prep.output_err = output_prepare(opts->output_cap, &prep.output,
					 &ls->stdout_fd, &ls->stderr_fd);
	if (opts->user) {
		int ng = CREDS_MAX_GROUPS;

		if (getgrouplist(opts->user_name, opts->gid, prep.groups, &ng) < 0) {
			prep.groups_err = true;
		} else {
			ls->set_user = true;
			ls->uid = opts->uid;
			ls->gid = opts->gid;
			ls->groups = prep.groups;
			ls->n_groups = ng;
		}
	}
	/* A failed start is tried again by launch_start, which reports it. */
	if (prep.find_err || !prep.env || prep.groups_err ||
	    launch_fork(ls, &prep.lc) < 0)
		return;
	/*
	 * The built-in policy's filters are known now (compiled with
	 * sysgate): the child loads them while the policy is read, and
	 * launch_start checks that they are the policy's.  Any failure
	 * here: launch_start starts a new child the ordinary way.
	 */
	if (opts->builtin_policy && rules_prebuilt_default.len) {
		struct sock_fprog guard = { 0 }, policy = { 0 };

		if (copy_prebuilt(&rules_prebuilt_default, &policy) == 0)
			(void)launch_go_early(&prep.lc, &guard, &policy);
	}
}

void supervisor_abandon(void)
{
	launch_abandon(&prep.lc);
	output_free(prep.output);
	prep.output = NULL;
	/* The child may have taken the terminal's foreground. */
	if (prep.tty >= 0) {
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(prep.tty, prep.our_pgrp);
		signal(SIGTTOU, SIG_DFL);
	}
	free_env(prep.env);
	free_env(prep.policy_env);
	rules_env_free(prep.env_applied);
	rules_env_free(prep.env_dropped);
	prep.env = prep.policy_env = NULL;
	prep.env_applied = prep.env_dropped = NULL;
	prep.done = false;
}

/*
 * The command's environment under the policy's [env]: sysgate's own
 * (but TMPDIR and SYSGATE_RUN) through rules_env_apply(), then the run's
 * TMPDIR and SYSGATE_RUN.  It takes the place of the one
 * supervisor_prepare() made before the policy was loaded, which stays
 * until supervisor_abandon(): the child reads ls.envp only at its
 * execve, after launch_start().  0 or -ENOMEM.
 */
static int apply_policy_env(const struct supervisor_opts *opts)
{
	extern char **environ;
	AUTO_FREE char **base = NULL;
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	base = calloc(n + 1, sizeof(*base));
	if (!base)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "TMPDIR=", 7) != 0 &&
		    strncmp(environ[i], "SYSGATE_RUN=", 12) != 0)
			base[k++] = environ[i];
	if (rules_env_apply(opts->rules, base, &prep.env_applied,
			    &prep.env_dropped) < 0)
		return -ENOMEM;
	prep.policy_env = child_env(opts, prep.env_applied);
	if (!prep.policy_env)
		return -ENOMEM;
	prep.ls.envp = prep.policy_env;
	return 0;
}

/*
 * Performance: the command's child, let go at the listener hand-off
 * (launch.c), runs on our CPU until its exec stop.  It did its set-up on
 * the other CPU (launch.c, spread()) and then slept at its trap, and that
 * CPU with it: woken there, it waited for the idle vCPU to come back,
 * from tens of microseconds to over a millisecond on the VM, on the
 * start's critical path (its execve's notification, and the event loop
 * after it, then ran there as well).  On our CPU it runs as soon as the
 * loop sleeps.  Its own mask is back at its exec stop (on_stop()), before
 * the command runs an instruction of its own; until then it runs
 * sysgate's code and its execve.  The loop, bound for the same span
 * where cpubind_enter() binds it too (after a pause: the first binding
 * of the run always is), gets its own mask back at the same moment.
 */
static void handoff(pid_t pid, void *arg)
{
	struct sup *s = arg;

	cpubind_enter(pid, &s->cmd.child_bind, false);
}

/*
 * Security: the trail at the path sysgate prints is the trail it writes.
 * The tree may change neither its file (notify_builtin_check()) nor the
 * directories above it (notify_trail_dir_guard()), known here by inode;
 * the path printed is the canonical one, with no symlink on the way that
 * could be swapped.  0, or -errno (-ELOOP: too deep to guard).
 */
static bool dir_kept(const struct sup *s, const struct stat *st)
{
	for (unsigned i = 0; i < s->guard.n_trail_dirs; i++)
		if (s->guard.trail_dirs[i].dev == st->st_dev &&
		    s->guard.trail_dirs[i].ino == st->st_ino)
			return true;
	return false;
}

/* The directories above the canonical path real, up to "/", kept where
 * they are in the name of rule.  0 or -errno (-ELOOP: too many). */
static int keep_dirs_above(struct sup *s, const char *real, const char *rule)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", real);
	for (char *slash; (slash = strrchr(dir, '/')) && dir[1];) {
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(dir, &st) < 0)
			return -errno;
		if (dir_kept(s, &st))
			continue;
		if (s->guard.n_trail_dirs == SUP_TRAIL_DIRS_MAX)
			return -ELOOP;
		s->guard.trail_dirs[s->guard.n_trail_dirs++] =
			(struct sup_dir_id){
			.dev = st.st_dev, .ino = st.st_ino, .rule = rule };
	}
	return 0;
}

/*
 * Security: the run's own configuration (supervisor_opts guard_*): each
 * file known by inode and the directories above it kept, so that the
 * tree can neither read the signing key nor change, replace or move the
 * policy, its includes or the keys, which the next run would trust; and
 * the state directory by canonical path.  0, or -errno with *what the
 * path that could not be guarded.
 */
static int config_guard_init(struct sup *s, const struct supervisor_opts *o,
			     const char **what)
{
	for (int secret = 1; secret >= 0; secret--) {
		const char *const *list = secret ? o->guard_secret :
					  o->guard_config;

		for (size_t i = 0; list && list[i]; i++) {
			char real[PATH_MAX];
			struct stat st;
			int r;

			*what = list[i];
			if (!realpath(list[i], real) || stat(real, &st) < 0)
				return -errno;
			if (s->guard.n_guards == SUP_GUARDS_MAX)
				return -E2BIG;
			s->guard.guards[s->guard.n_guards++] =
				(struct sup_guard){
				.dev = st.st_dev, .ino = st.st_ino,
				.secret = secret };
			if ((r = keep_dirs_above(s, real, "sysgate:config")) < 0)
				return r;
		}
	}
	for (size_t i = 0; o->state_dirs && o->state_dirs[i] &&
			   i < ARRAY_SIZE(s->guard.state_dirs); i++)
		snprintf(s->guard.state_dirs[i],
			 sizeof(s->guard.state_dirs[i]), "%s",
			 o->state_dirs[i]);
	return 0;
}

static int trail_guard_init(struct sup *s, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	s->guard.audit_dev = st.st_dev;
	s->guard.audit_ino = st.st_ino;
	s->guard.have_audit_ino = true;
	/* A terminal or a pipe (-a /dev/stderr): no file there to verify. */
	if (!S_ISREG(st.st_mode))
		return 0;
	if (!realpath(path, s->guard.trail_real))
		return -errno;
	return keep_dirs_above(s, s->guard.trail_real, "sysgate:audit-trail");
}

/* The modules that keep part of a task's state in the process table:
 * what each gives back when a task leaves it (procs_del()). */
static void register_task_state(void)
{
	procs_on_forget(tracee_forget);
	procs_on_forget(resolve_forget_root);
	procs_on_forget(notify_exec_forget);
	procs_on_forget(regs_forget);
	procs_on_forget(stack_forget_task);
	procs_on_forget(caller_creds_forget);
}

/* The run's state from its options: identity, [limits], cgroups none yet. */
static void run_init(struct sup *s, const struct supervisor_opts *opts)
{
	uint64_t v;

	s->run.opts = opts;
	s->run.rules = opts->rules;
	s->out.audit = opts->audit;
	s->loop.listener = -1;
	s->cmd.child_status = -1;
	s->run.self = getpid();
	s->run.start_us = sup_now_us();
	s->out.denials_fd = opts->denials_fd;
	/* No call can move a root: keep each task's (resolve.c). */
	resolve_set_root_fixed(
		rules_never_allows(s->run.rules, SYS_chroot) &&
		rules_never_allows(s->run.rules, SYS_pivot_root) &&
		rules_never_allows(s->run.rules, SYS_setns) &&
		rules_never_allows(s->run.rules, SYS_unshare));
	if (rules_limit(opts->rules, RULES_LIMIT_PROCESSES, &v) == 0)
		s->lim.max_tasks = v;
	if (rules_limit(opts->rules, RULES_LIMIT_WALL, &v) == 0)
		s->lim.wall_deadline_us = s->run.start_us + v * 1000;
	if (rules_limit(opts->rules, RULES_LIMIT_CPU, &v) == 0)
		s->lim.cpu_limit_ms = v;
	cgroup_init(&s->lim.cg);
}

/* The trail and the run's own files guarded from the tree, and the
 * listener's sizes: -1 (said) when the run cannot start. */
static int run_guard(struct sup *s, const struct supervisor_opts *opts)
{
	const char *what = NULL;
	int r;

	if (opts->audit_path &&
	    (r = trail_guard_init(s, opts->audit_path)) < 0) {
		fprintf(stderr, "sysgate: cannot guard the audit trail %s: %s\n",
			opts->audit_path,
			r == -ELOOP ? "too many directories above it" : strerror(-r));
		return -1;
	}
	if ((r = config_guard_init(s, opts, &what)) < 0) {
		fprintf(stderr, "sysgate: cannot guard %s from the command: %s\n",
			what ? what : "the run's configuration",
			r == -ELOOP ? "too many directories above it" :
			r == -E2BIG ? "too many files to guard" :
			strerror(-r));
		return -1;
	}
	if (seccomp_notify_sizes_get(s) < 0) {
		fprintf(stderr, "sysgate: seccomp user notification is not available: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The cgroups, the environment, the command's output and run.start:
 * -1 (said) when the trail cannot be written. */
static int run_open_trail(struct sup *s, const struct supervisor_opts *opts,
			  int *env_err)
{
	struct launch_spec *ls = &prep.ls;
	uint64_t cap;

	setup_cgroups(s);
	if (cgroup_via(&s->lim.cg, CGROUP_CPU) == CGROUP_NONE)
		s->lim.cpu_limit_ms = 0;	/* RLIMIT_CPU per process instead */
	if (prep.env)
		*env_err = apply_policy_env(opts);
	s->run.env_dropped = prep.env_dropped;
	record_load_core_pattern();
	/* Unreachable after an early go: only the built-in policy goes
	 * early, and it sets no output. */
	if (!opts->output_cap_given && !prep.lc.went &&
	    rules_output_cap(opts->rules, &cap) == 0)
		output_set_cap(prep.output, cap, &ls->stdout_fd,
			       &ls->stderr_fd);
	s->out.output = prep.output;
	if (record_run_start(s) < 0) {
		fprintf(stderr, "sysgate: cannot write the audit trail\n");
		cgroup_release(&s->lim.cg);
		s->out.output = NULL;
		return -1;
	}
	prep.output = NULL;	/* s->out.output's now */
	return 0;
}

/* What the start needs, after run.start: -1 when the run ends before it
 * (recorded, or the command's status set). */
static int run_ready(struct sup *s, const struct supervisor_opts *opts,
		     int env_err)
{
	sigset_t mask;
	int r;

	if (prep.output_err) {
		sup_fail(s, "cannot make the pipes for the command's output: %s",
			 strerror(-prep.output_err));
		return -1;
	}
	r = prep.find_err;
	if (r < 0) {
		fprintf(stderr, "sysgate: %s: %s\n", opts->argv[0],
			r == -ENOENT ? "command not found" : strerror(-r));
		s->cmd.child_status = (r == -ENOENT ? 127 : 126) << 8;
		return -1;
	}
	if (rules_wants_stacks(opts->rules)) {
		char why[256];

		/* Loaded only for such policies: it costs every start. */
		if (stack_init(why, sizeof(why)) < 0) {
			sup_fail(s, "the policy asks for stacks (stack = yes), but libunwind cannot be loaded: %s",
				 why);
			return -1;
		}
	}
	if (ask_init() < 0) {
		sup_fail(s, "cannot set up questions: %s", strerror(errno));
		return -1;
	}
	if (!prep.env || env_err < 0) {
		sup_fail(s, "out of memory");
		return -1;
	}
	if (prep.groups_err) {
		sup_fail(s, "--user %s: too many groups", opts->user_name);
		return -1;
	}

	sup_signal_mask(&mask);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	s->loop.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->loop.sigfd < 0) {
		sup_fail(s, "signalfd: %s", strerror(errno));
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	return 0;
}

/* [limits] the tree's cgroup does not hold, as the command's rlimits. */
static void run_rlimits(struct sup *s, const struct supervisor_opts *opts,
			struct launch_spec *ls)
{
	static const struct {
		enum rules_limit l;
		int res;
	} map[] = {
		{ RULES_LIMIT_MEMORY, RLIMIT_AS },
		{ RULES_LIMIT_CPU, RLIMIT_CPU },
		{ RULES_LIMIT_FILE_SIZE, RLIMIT_FSIZE },
		{ RULES_LIMIT_OPEN_FILES, RLIMIT_NOFILE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		uint64_t v;

		if (rules_limit(opts->rules, map[i].l, &v) < 0)
			continue;
		/* The tree's cgroup holds it instead. */
		if ((map[i].l == RULES_LIMIT_MEMORY &&
		     cgroup_via(&s->lim.cg, CGROUP_MEMORY) != CGROUP_NONE) ||
		    (map[i].l == RULES_LIMIT_CPU &&
		     cgroup_via(&s->lim.cg, CGROUP_CPU) != CGROUP_NONE))
			continue;
		/* CPU is counted in ms in the policy, s by the kernel. */
		if (map[i].l == RULES_LIMIT_CPU)
			v = (v + 999) / 1000;
		ls->rlimits[ls->n_rlimits].resource = map[i].res;
		ls->rlimits[ls->n_rlimits].value = (rlim_t)v;
		ls->n_rlimits++;
	}
}

/* The command started: the loop's state, our fd limit, its first task. */
static void run_started(struct sup *s, const struct launch_result *lr)
{
	struct rlimit rl;
	struct proc *p;
	int r;

	s->cmd.child = lr->pid;
	s->loop.listener = lr->listener;
	r = output_start(s->out.output, s->out.audit);
	if (r < 0)
		sup_fail(s, "cannot pass on the command's output: %s",
			 strerror(-r));
	s->loop.sync_wake = s->loop.sync_on = lr->sync_wake;
	/*
	 * The supervisor holds fds per process (pidfds, kept roots and
	 * cwds) on top of those of the calls it carries out: its own soft
	 * limit goes up to the hard one, now that the command has started
	 * with the limit it was given.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	p = procs_add(lr->pid, lr->pid, s->run.self);
	if (!p) {
		sup_fail(s, "out of memory");
	} else {
		char self_exe[PATH_MAX];

		p->attached = true;
		if (tracee_exe(s->run.self, self_exe, sizeof(self_exe)) == 0)
			procs_set_exe(p, self_exe);
		record_fork(s, lr->pid, s->run.self, lr->pid, "fork");
	}
}

/* The command under its filter, handed to the loop: -1 when it did not
 * start (recorded, or its early status kept). */
static int run_start(struct sup *s, const struct supervisor_opts *opts)
{
	struct launch_spec *ls = &prep.ls;
	struct launch_result lr;
	char dir[PATH_MAX] = "";
	int r;

	ls->build = build_filters;
	ls->build_arg = opts->rules;
	if (opts->user)
		s->run.as_caller = true;
	run_rlimits(s, opts, ls);
	r = make_redirect_dirs(opts, dir, sizeof(dir));
	if (r < 0) {
		sup_fail(s, "cannot create the redirect directory %s: %s",
			 dir, strerror(-r));
		return -1;
	}
	if (s->lim.cg.n) {
		ls->place = place_child;
		ls->place_arg = &s->lim.cg;
	}
	ls->handoff = handoff;
	ls->handoff_arg = s;
	r = launch_start(ls, &prep.lc, &lr);
	if (r == -ECHILD) {
		s->cmd.child_status = lr.early_status;
		return -1;
	}
	if (r < 0) {
		if (lr.build_failed)
			sup_fail(s, "cannot build the seccomp filter");
		else if (place_failed)
			sup_fail(s, "cannot put the command in its cgroup: %s",
				 strerror(-r));
		else
			sup_fail(s, "cannot start the command under the filter: %s",
				 strerror(-r));
		return -1;
	}
	run_started(s, &lr);
	return 0;
}

/* The end of the run, started or not: the tree's leftovers, run.end, the
 * summary.  Returns sysgate's exit status. */
static int run_end(struct sup *s, const struct supervisor_opts *opts)
{
	int status;

	/* A child started for a command that could not start; the terminal
	 * back; the environment, needed no more. */
	supervisor_abandon();
	final_cgroup_checks(s);
	/* Every process of the tree is gone (or was never started). */
	cgroup_release(&s->lim.cg);
	s->tally.ipc_removed = sysv_end_of_run();
	status = exit_status_of(s);
	if (s->lim.wall_hit)
		fprintf(stderr, "sysgate: the wall-time limit was reached: the process tree was killed\n");
	if (!s->cmd.child_execd && !s->tally.failed && s->cmd.first_exec_err) {
		fprintf(stderr, "sysgate: cannot run %s: %s%s%s%s\n", opts->argv[0],
			strerror(s->cmd.first_exec_err),
			s->cmd.first_exec_rule ? " (rule " : "",
			s->cmd.first_exec_rule ? s->cmd.first_exec_rule : "",
			s->cmd.first_exec_rule ? ")" : "");
	}
	/* Its last output, recorded before run.end. */
	if (output_finish(s->out.output) < 0)
		sup_fail(s, "cannot write the audit trail");
	/* After the tree, before run.end (which a failed write also
	 * fails: the writer's error is sticky). */
	(void)written_record_all(s);
	if (record_run_end(s, status) < 0) {
		/* A syslog failure is told by cmd_run: the file has run.end. */
		if (!audit_ship_error(s->out.audit))
			fprintf(stderr, "sysgate: cannot write the end of the audit trail\n");
		status = SUPERVISOR_EXIT_FAILURE;
	}
	output_free(s->out.output);
	s->out.output = NULL;
	record_summary(s, status);
	if (s->loop.listener >= 0)
		close(s->loop.listener);
	if (s->loop.sigfd > 0)
		close(s->loop.sigfd);
	return status;
}

/* A run in steps: its state, the guards, the trail opened with
 * run.start, what the start needs, the start, the loop, the end. */
int supervisor_run(const struct supervisor_opts *opts)
{
	static struct sup s;
	int env_err = 0;

	if (!prep.done)
		supervisor_prepare(opts);
	register_task_state();

	/* s is static, so zero on the first run: clearing its 130 KiB again
	 * would fault in every page of it at start-up. */
	if (sup_global)
		memset(&s, 0, sizeof(s));
	sup_global = &s;
	/* The event loop's thread (run_loop()), from the launch on
	 * (handoff()). */
	tracee_set_main_thread();
	run_init(&s, opts);
	if (run_guard(&s, opts) < 0 ||
	    run_open_trail(&s, opts, &env_err) < 0) {
		supervisor_abandon();
		return SUPERVISOR_EXIT_FAILURE;
	}
	if (run_ready(&s, opts, env_err) == 0 && run_start(&s, opts) == 0) {
		/* Emulated creates apply the caller's umask themselves. */
		umask(0);
		run_loop(&s);
		seal(&s);
	}
	return run_end(&s, opts);
}
