// SPDX-License-Identifier: MIT
/*
 * supervisor/cpubind.c: an emulated call's SECCOMP_IOCTL_NOTIF_ADDFD with
 * the caller kept on the CPU the event loop runs on.
 *
 * Performance: with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, RECV and SEND wake
 * the other side on the waker's CPU, so the caller and the event loop take
 * turns on one CPU (choose_wake() in notify.c turns it off for a reply
 * sent while other work waits).  ADDFD has no such flag: it wakes the
 * caller (which installs the fd itself) with a plain wake-up, which the
 * scheduler sends to an idle CPU when there is one, and on a VM whose
 * idle vCPUs halt, waking one costs tens of microseconds; the two tasks
 * then drift apart for the rest of the call.  An emulated open took twice the time of the
 * same loop run on one CPU (bench rows (c2) and (c3)).  For the length of
 * the ADDFD the caller is bound to the loop's CPU, and the call stays on
 * it (bench (c): 70 -> 35 us).  Binding the event loop as well, for the
 * call or for good, gained nothing more here.
 *
 * The caller is asleep in the call when bound, it only installs the fd in
 * the kernel meanwhile, and its mask is put back before the reply lets it
 * go on (but in a run: below).  What another task can see for those
 * microseconds is its mask (sched_getaffinity(2), Cpus_allowed in
 * /proc/PID/status) naming one CPU.  What must not happen is that the
 * put-back undoes a change made meanwhile: a sched_setaffinity of the
 * caller by another task of the tree.  That call is always notified
 * (rules_always_notified()), and from its notification until its task is
 * seen again (its next call or ptrace stop, or its end) nothing is bound
 * (cpubind_note_call(), cpubind_task_seen()).  One made from outside the
 * tree in those microseconds is undone; see SECURITY.md.
 *
 * The mask put back is the caller's own; when it names every online CPU
 * the put-back asks for all CPUs instead, which the kernel keeps as good
 * as no request (a cpuset that grows later lets the task follow, as
 * before).
 *
 * The event loop too, after a pause.  The ADDFD waits for the caller to
 * install the fd, and the caller's completion wakes the loop with a plain
 * wake-up as well, which sends it to the other CPU when that one is idle.
 * In a run of calls (find) that CPU was busy a call ago and wakes at once
 * (the two tasks then move between the CPUs together, as cheaply as on
 * one); when the program worked a while since its last notified call
 * (Python between two imports), the other vCPU has halted, and waking it
 * cost 25 to 250 us a call.  So when more than SELF_AFTER_US passed since
 * the loop's last binding ended, the loop binds itself to its CPU for the
 * ADDFD as well (two system calls: in a run of calls they would cost more
 * than they save).  Its own mask is read once and put back after (a
 * change made to it from outside since is undone; nothing in the tree can
 * make one).  Python's 12 stdlib imports (bench): 53.8 -> 49.8 ms, native
 * 42.7; find over /usr/lib unchanged.
 *
 * In a run of calls from one caller alone (more than WAKE_ALONE in a row
 * from the same task: find, tar, git add), the loop's binding is kept
 * from one call to the next instead: binding and unbinding itself costs
 * 3.7 us a call here (the caller's pair 1.9 us), and left free between
 * the calls the loop still followed the ADDFD's plain wake-up to the
 * other CPU now and then.  It is given up (cpubind_release_self()) as
 * soon as another task calls (make -j2's compilers: the loop must be free
 * to run on whichever CPU is idle, not beside a busy compiler), when the
 * loop has waited KEEP_IDLE_US for the next call (loop.c: a caller that
 * works between its calls, as Python does, wakes the loop with a sync
 * wake-up on its own CPU, where a loop bound elsewhere cannot follow),
 * and before an ask thread starts (it would inherit the one-CPU mask for
 * its life; the workers are bound to the loop's CPU anyway, notify.c).
 * Bench, medians of 7 runs alternating with the binding given up after
 * each call: find over /usr/lib 3.52x -> 3.17x native, tar 2.87x ->
 * 2.72x, git 2.99x -> 2.93x; python, make -j2 and spawn unchanged (1.28x,
 * 1.77-1.80x, 1.50-1.52x).  A loop kept bound for 1 ms instead of 50 us
 * made Python 1.18x -> 1.31x and make 1.80x -> 1.90x.
 *
 * In such a run the caller is kept bound between its calls as well, and
 * let go with the loop (cpubind_release_self(); also when the loop has
 * been kept busy by other tasks' stops for KEEP_IDLE_US since the
 * caller's last call): the two sched_setaffinity(2) and the
 * sched_getaffinity(2) of each call are saved, 3 to 4 us a call.  Runs
 * alternating with the caller put back after each call (medians of 7 to
 * 9, 2026-12-04): find over /usr/lib 440 -> 401 ms, tar 367 -> 314 ms;
 * Python, spawn and git unchanged within the noise.  The caller now runs
 * its own code on one CPU, which must not show where a program looks:
 *   - its own mask, read or set: sched_getaffinity and sched_setaffinity
 *     are always notified, and cpubind_note_call() puts the kept caller's
 *     mask back before either runs; once the tree has set a mask itself
 *     (tree_masks), no caller is kept any more;
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

#include "supervisor/internal.h"

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
