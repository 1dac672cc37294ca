/* SPDX-License-Identifier: MIT */
/* An ADDFD's caller kept on the event loop's CPU (cpubind.c). */
#ifndef SYSGATE_SUPERVISOR_CPUBIND_H
#define SYSGATE_SUPERVISOR_CPUBIND_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A task bound to the event loop's CPU for a while (cpubind.c). */
struct cpubind {
	pid_t caller;		/* the caller bound (0: not) */
	cpu_set_t mask;		/* its own mask */
	bool self;		/* the event loop bound as well */
	bool keep;		/* the caller stays bound after the call */
};

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

#endif
