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
 * The caller runs nothing of its own under the binding: it is asleep in
 * the call when bound, it only installs the fd in the kernel meanwhile,
 * and its mask is put back before the reply lets it go on.  What another
 * task can see for those microseconds is its mask (sched_getaffinity(2),
 * Cpus_allowed in /proc/PID/status) naming one CPU.  What must not happen
 * is that the put-back undoes a change made meanwhile: a sched_setaffinity
 * of the caller by another task of the tree.  That call is always notified
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
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
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
static bool self_kept;		/* the loop bound between calls (a run) */
#define SELF_AFTER_US 50

void cpubind_note_call(pid_t tid, int nr, uint64_t arg0)
{
	tid_set_del(&inflight, tid);
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

/* Put a mask back: all CPUs for one that named every online CPU. */
static int put_back(pid_t tid, const cpu_set_t *mask)
{
	cpu_set_t all;

	if (CPU_COUNT(mask) < n_online)
		return sched_setaffinity(tid, sizeof(*mask), mask);
	memset(&all, 0xff, sizeof(all));
	return sched_setaffinity(tid, sizeof(all), &all);
}

int cpubind_enter(pid_t tid, struct cpubind *b, bool run)
{
	cpu_set_t one;
	int cpu;

	b->caller = 0;
	b->self = false;
	/* Only the event loop thread: the others run beside it. */
	if (off || inflight.n || !tracee_on_main_thread())
		return 0;
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
	/* Kept: the loop runs on this CPU alone already. */
	if (self_kept)
		return 0;
	if ((run || sup_now_us() - last_end_us > SELF_AFTER_US) &&
	    (have_own || (have_own = sched_getaffinity(0, sizeof(own), &own) == 0)) &&
	    CPU_ISSET(cpu, &own) &&
	    sched_setaffinity(0, sizeof(one), &one) == 0) {
		/* In a run, kept until cpubind_release_self(). */
		self_kept = run;
		b->self = !run;
	}
	return 0;
}

int cpubind_leave(struct cpubind *b)
{
	pid_t tid = b->caller;
	cpu_set_t all;

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
	if (put_back(tid, &b->mask) == 0 || errno == ESRCH)
		return 0;
	/*
	 * Its mask cannot be set again (a cpuset changed under it): all
	 * CPUs, which the kernel narrows to the ones it may use.  Failing
	 * that, the caller stays on one CPU: the binding is given up.
	 */
	memset(&all, 0xff, sizeof(all));
	if (sched_setaffinity(tid, sizeof(all), &all) == 0 || errno == ESRCH)
		return 0;
	off = true;
	return -errno;
}

bool cpubind_self_kept(void)
{
	return self_kept;
}

void cpubind_release_self(void)
{
	if (!self_kept || !tracee_on_main_thread())
		return;
	self_kept = false;
	last_end_us = sup_now_us();
	/* Failing, the loop stays on this CPU: bind no more. */
	if (put_back(0, &own) < 0)
		off = true;
}
