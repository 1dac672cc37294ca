/* SPDX-License-Identifier: MIT */
/*
 * supervisor/cpubind.c: an emulated call's SECCOMP_IOCTL_NOTIF_ADDFD with
 * the caller kept on the CPU the event loop runs on.
 *
 * Why: with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, RECV and SEND wake the
 * other side on the waker's CPU, so the caller and the event loop take
 * turns on one CPU (choose_wake() in notify.c turns it off for a reply
 * sent while other work waits).  ADDFD has no such flag: it wakes the
 * caller with a plain wake-up, which the scheduler sends to an idle CPU,
 * and on a VM whose idle vCPUs halt that costs tens of microseconds.  So
 * for the length of the ADDFD the caller is bound to the loop's CPU
 * (bench/README.md has the figures behind each choice below).
 *
 * Invariants:
 *   - the caller is asleep in the call while bound, and its own mask is
 *     put back before the reply lets it go on (but in a run, below);
 *   - a put-back never undoes a change made meanwhile by the tree:
 *     sched_setaffinity and sched_getaffinity are always notified
 *     (rules_always_notified()), and from such a notification until its
 *     task is seen again (its next call or stop, or its end) nothing is
 *     bound (cpubind_note_call(), cpubind_task_seen()).  A change made
 *     from outside the tree in those microseconds is undone (SECURITY.md);
 *   - the mask put back is the caller's own; one that names every online
 *     CPU is put back as "all CPUs", which the kernel keeps as no request.
 *
 * The event loop binds itself to its CPU for the ADDFD as well when more
 * than SELF_AFTER_US passed since its last binding ended (the other vCPU
 * has halted by then).  Its own mask is read once and put back after.
 *
 * In a run of calls from one caller alone (more than WAKE_ALONE in a row
 * from the same task), the loop's binding, and the caller's, are kept
 * from one call to the next.  Both are given up (cpubind_release_self())
 * as soon as another task calls, when the loop has waited KEEP_IDLE_US
 * for the next call, and before an ask thread starts (it would inherit
 * the one-CPU mask).  A caller kept bound runs its own code on one CPU,
 * which must not show where a program looks:
 *   - its own mask, read or set: cpubind_note_call() puts the kept
 *     caller's mask back before sched_getaffinity or sched_setaffinity
 *     runs; once the tree has set a mask itself (tree_masks), no caller
 *     is kept any more;
 *   - a task it creates meanwhile inherits the one-CPU mask, and is given
 *     the caller's own before it runs: at its creator's fork event
 *     (cpubind_new_task()), or at its own first stop when the kernel
 *     reports that first (cpubind_first_stop());
 *   - an exec keeps the binding (the mask outlives it), and a thread that
 *     exec's takes the leader's tid (cpubind_task_renamed()).
 * Cpus_allowed in /proc/PID/status does show it (SECURITY.md).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "supervisor/cpubind.h"
#include "supervisor/record.h"
#include "supervisor/tidset.h"
#include "supervisor/tracee.h"

static bool off;		/* binding given up for the run */
static struct tid_set inflight;	/* cross-task sched_setaffinity let through */
static int n_online;		/* CPUs online, 0: not read yet */
static cpu_set_t own;		/* the event loop's own mask, */
static bool have_own;		/* once read */
static uint64_t last_end_us;	/* when the last binding ended */
static uint64_t last_use_us;	/* the kept caller's last call answered */
static bool self_kept;		/* the loop bound between calls (a run) */
static pid_t kept;		/* the caller kept bound between calls */
static bool tree_masks;		/* a task of the tree set a CPU mask */
#define SELF_AFTER_US 50

/*
 * Tasks that may carry a binding they did not ask for: a caller kept
 * bound between its calls, from its first such binding until its next
 * call after the binding ended (or its end).  A task it creates
 * meanwhile inherits the one-CPU mask and is given the caller's own at
 * its first stop (cpubind_new_task(), cpubind_first_stop()).
 */
#define CARRIERS_MAX 16
static struct carrier {
	pid_t tid;
	cpu_set_t mask;		/* its own mask, before the binding */
} carriers[CARRIERS_MAX];
static unsigned n_carriers;

static struct carrier *carrier_find(pid_t tid)
{
	for (unsigned i = 0; i < n_carriers; i++)
		if (carriers[i].tid == tid)
			return &carriers[i];
	return NULL;
}

static void carrier_del(pid_t tid)
{
	struct carrier *c = carrier_find(tid);

	if (c)
		*c = carriers[--n_carriers];
}

/* Put a mask back: all CPUs for one that named every online CPU. */
static int put_back(pid_t tid, const cpu_set_t *mask)
{
	cpu_set_t all;

	if (CPU_COUNT(mask) < n_online)
		return sched_setaffinity(tid, sizeof(*mask), mask);
	memset(&all, 0xff, sizeof(all));
	return sched_setaffinity(tid, sizeof(all), &all);
}

/* A task's mask back: its own, else all CPUs (a cpuset changed under it:
 * the kernel narrows them to the ones it may use).  -errno when neither
 * can be set (binding is then given up for the run). */
static int unbind(pid_t tid, const cpu_set_t *mask)
{
	cpu_set_t all;

	if (put_back(tid, mask) == 0 || errno == ESRCH)
		return 0;
	memset(&all, 0xff, sizeof(all));
	if (sched_setaffinity(tid, sizeof(all), &all) == 0 || errno == ESRCH)
		return 0;
	off = true;
	return -errno;
}

/* The kept caller's mask back (it stays a carrier until its next call). */
static void release_kept(void)
{
	const struct carrier *c = carrier_find(kept);
	pid_t tid = kept;
	int r;

	kept = 0;
	if (tid && c && (r = unbind(tid, &c->mask)) < 0)
		fprintf(stderr, "sysgate: warning: the CPU mask of task %d could not be put back (%s); it stays on one CPU\n",
			(int)tid, strerror(-r));
}

void cpubind_note_call(pid_t tid, int nr, uint64_t arg0)
{
	tid_set_del(&inflight, tid);
	if (nr == SYS_sched_getaffinity || nr == SYS_sched_setaffinity) {
		/*
		 * The mask it reads or sets is the task's own: a caller
		 * kept bound is put back first (this call is always
		 * notified, rules_always_notified()).  Once the tree sets
		 * masks itself, no caller is kept any more: a one-CPU mask
		 * could then be its own (cpubind_first_stop()).
		 */
		cpubind_release_self();
		if (nr == SYS_sched_setaffinity)
			tree_masks = true;
	}
	/* Seen in a call: any task it created while bound has had its
	 * creation event (it waited in it for the loop). */
	if (tid != kept)
		carrier_del(tid);
	/* A task's own mask (pid 0, or its own tid) cannot change while it
	 * is bound: it is asleep in the call then. */
	if (nr != SYS_sched_setaffinity || arg0 == 0 ||
	    (pid_t)arg0 == tid)
		return;
	if (!tid_set_add(&inflight, tid))
		off = true;
}

void cpubind_task_seen(pid_t tid)
{
	tid_set_del(&inflight, tid);
}

void cpubind_task_gone(pid_t tid)
{
	tid_set_del(&inflight, tid);
	if (kept == tid)
		kept = 0;
	carrier_del(tid);
}

void cpubind_task_renamed(pid_t former, pid_t tid)
{
	struct carrier *c;

	/* The exec'ing thread takes the leader's tid (which is gone). */
	carrier_del(tid);
	c = carrier_find(former);
	if (c)
		c->tid = tid;
	if (kept == former)
		kept = tid;
}

/* A task that never ran: its mask back to mask if it names one CPU. */
static void fix_new(pid_t tid, const cpu_set_t *mask)
{
	cpu_set_t m;
	int r;

	if (sched_getaffinity(tid, sizeof(m), &m) == 0 && CPU_COUNT(&m) == 1 &&
	    CPU_COUNT(mask) > 1 && (r = unbind(tid, mask)) < 0)
		fprintf(stderr, "sysgate: warning: the CPU mask of task %d could not be set (%s); it stays on one CPU\n",
			(int)tid, strerror(-r));
}

void cpubind_new_task(pid_t parent, pid_t tid, bool started)
{
	const struct carrier *c = carrier_find(parent);

	/* Started: seen at its first stop before this event, and fixed
	 * there (cpubind_first_stop()). */
	if (c && !started)
		fix_new(tid, &c->mask);
}

void cpubind_first_stop(pid_t tid)
{
	/*
	 * A task seen before its creator's event: the creator is not known
	 * yet.  While the tree sets no mask itself, a one-CPU mask can only
	 * be a binding's (a caller bound to one CPU already is never bound,
	 * and every task starts from the command's mask): while a carrier
	 * is left, it is the task of one.  All carriers have the tree's
	 * mask; the latest is taken.
	 */
	if (n_carriers && !tree_masks)
		fix_new(tid, &carriers[n_carriers - 1].mask);
}

int cpubind_enter(pid_t tid, struct cpubind *b, bool run)
{
	cpu_set_t one;
	int cpu;

	b->caller = 0;
	b->self = false;
	b->keep = false;
	/* Only the event loop thread: the others run beside it. */
	if (off || inflight.n || !tracee_on_main_thread())
		return 0;
	if (kept == tid)
		return 0;	/* bound still, since its last call of the run */
	release_kept();
	if (!n_online) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		if (n < 2) {
			off = true;	/* one CPU: nothing to keep together */
			return 0;
		}
		n_online = (int)n;
	}
	cpu = sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE ||
	    sched_getaffinity(tid, sizeof(b->mask), &b->mask) < 0 ||
	    /* Never a CPU the caller's own mask leaves out; nothing to do
	     * for a caller bound to one CPU already. */
	    !CPU_ISSET(cpu, &b->mask) || CPU_COUNT(&b->mask) == 1)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(tid, sizeof(one), &one) < 0)
		return 0;	/* gone, or not ours to bind */
	b->caller = tid;
	if (!self_kept &&
	    (run || sup_now_us() - last_end_us > SELF_AFTER_US) &&
	    (have_own || (have_own = sched_getaffinity(0, sizeof(own), &own) == 0)) &&
	    CPU_ISSET(cpu, &own) &&
	    sched_setaffinity(0, sizeof(one), &one) == 0) {
		/* In a run, kept until cpubind_release_self(). */
		self_kept = run;
		b->self = !run;
	}
	/* In a run, with the loop kept on this CPU, the caller is kept on it
	 * too, between its calls. */
	b->keep = run && self_kept && !tree_masks;
	return 0;
}

int cpubind_leave(struct cpubind *b)
{
	pid_t tid = b->caller;
	struct carrier *c;

	b->caller = 0;
	if (!tid)
		return 0;
	if (b->self) {
		b->self = false;
		/* Failing, the loop stays on this CPU: bind no more. */
		if (put_back(0, &own) < 0)
			off = true;
	}
	last_end_us = sup_now_us();
	if (b->keep && !off) {
		c = carrier_find(tid);
		if (!c && n_carriers < CARRIERS_MAX)
			c = &carriers[n_carriers++];
		if (c) {
			c->tid = tid;
			c->mask = b->mask;
			kept = tid;
			last_use_us = last_end_us;
			return 0;
		}
	}
	return unbind(tid, &b->mask);
}

bool cpubind_self_kept(void)
{
	return self_kept;
}

void cpubind_call_done(void)
{
	if (kept)
		last_use_us = sup_now_us();
}

uint64_t cpubind_kept_since_us(void)
{
	return kept ? last_use_us : 0;
}

void cpubind_release_self(void)
{
	if (!tracee_on_main_thread())
		return;
	release_kept();
	if (!self_kept)
		return;
	self_kept = false;
	last_end_us = sup_now_us();
	/* Failing, the loop stays on this CPU: bind no more. */
	if (put_back(0, &own) < 0)
		off = true;
}
