/* SPDX-License-Identifier: MIT */
/*
 * --user: the caller's credentials, kept per task, and taken on by the
 * event loop's thread for the calls it walks and carries out.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

/* --user: the generation of the credentials kept per task (below). */
static uint64_t creds_gen = 1;
/* --user: the event loop's own credentials, read on its thread before it
 * first takes a caller's (so before any job that runs as a caller): what
 * it and the workers give back after a caller's call. */
static struct creds loop_own;
static bool loop_have_own;

/*
 * Security: with --user every walk and every emulated call is made with
 * the caller's credentials, so they must be the ones the kernel would use
 * for this very call.  Reading them is an open, read and
 * close of /proc/TID/status that the kernel formats whole (bench/README.md), so
 * they are kept per task and read again after anything that can change
 * them:
 *   - a task's credentials change only by its own calls (commit_creds acts
 *     on current): the set*id family, setgroups and capset, always
 *     notified (rules/filter.c), and an exec (no_new_privs keeps a
 *     set-user-ID program from raising them, but the exec stop counts as
 *     a change anyway);
 *   - each of those makes every kept value stale (one generation for the
 *     run), before the call runs: the task that asked can make its next
 *     call only after the change is done, and it reads them again then;
 *   - a task's calls are sequential and it is blocked while they are
 *     read, so what is read is what the kernel checks this call with.
 * A new task (or a reused tid) starts with none kept.
 */

/* The caller's credentials (kept in p), or NULL when they cannot be read. */
static const struct creds *task_creds(struct proc *p, pid_t tid)
{
	if (!p->creds) {
		p->creds = malloc(sizeof(*p->creds));
		if (!p->creds)
			return NULL;
	} else if (p->creds_gen == creds_gen) {
		return p->creds;
	}
	p->creds_gen = 0;
	if (tracee_creds(tid, p->creds) < 0)
		return NULL;
	p->creds_gen = creds_gen;
	return p->creds;
}

/*
 * --user: the credentials of the event loop's thread.  A call is walked
 * and carried out with its caller's credentials (creds_switch(): uids,
 * gids, groups, effective and inheritable capabilities); they are kept
 * after it, so that the next call of a caller with the same ones (under
 * --user, nearly every call) switches nothing: a switch there and back is
 * a dozen system calls, several of them committing new credentials.
 *
 * Security: what the thread holds between calls is a caller's rights,
 * never more: its permitted capability set stays the supervisor's, which
 * no check of the calls it carries out consults (creds_take() in
 * tracee.c says why), and which keeps the tree from tracing the thread
 * (cap_ptrace_access_check(): our permitted set is not within the
 * tree's).  Every piece of the supervisor's own work runs after
 * notify_creds_release(): the loop calls it before anything but a
 * notification (ptrace stops, exits, signals, answers to ask, limits, the
 * end of the run), and so does a call not walked as its caller.
 */
static struct creds loop_held;	/* the caller's, while loop_holding */
static bool loop_holding;
/* A switch or a release failed half-way: the thread holds something in
 * between, which no call may use (loop_holding is false: the next call
 * switches in full) and the release gives back. */
static bool loop_unsure;

/* Take on a caller's credentials in the loop's thread; 0 or -errno (then
 * the thread has its own). */
static int loop_creds_take(const struct creds *kept)
{
	int r;

	if (!loop_have_own) {
		/* Read while the thread has its own: nothing but this
		 * file changes them, and notify_creds_release() puts them
		 * back. */
		if ((r = creds_save(&loop_own)) < 0)
			return r;
		loop_have_own = true;
	}
	/* The same ids, groups and capabilities: nothing to switch; only
	 * the umask read with them may differ. */
	bool same = loop_holding && creds_same(&loop_held, kept);

	/* A copy (what the call reads): the task may go (its exit seen)
	 * before the call is done with them. */
	loop_held = *kept;
	if (same)
		return 0;
	r = creds_switch(&loop_held, &loop_own);
	loop_holding = r == 0;
	loop_unsure = r < 0;
	return r;
}

void notify_creds_release(void)
{
	int r;

	assert_loop_thread();
	if (!loop_holding && !loop_unsure)
		return;
	r = creds_leave(&loop_own);
	loop_holding = false;
	loop_unsure = r < 0;
	/* Fail closed: the next call switches in full, or is refused;
	 * the next release tries again. */
	if (r < 0)
		fprintf(stderr, "sysgate: cannot take back own credentials: %s\n",
			strerror(-r));
}

const struct creds *caller_creds_take(struct proc *p, pid_t tid)
{
	const struct creds *kept;

	assert_loop_thread();
	kept = task_creds(p, tid);
	if (!kept || loop_creds_take(kept) < 0)
		return NULL;
	return &loop_held;
}

const struct creds *caller_creds_own(void)
{
	return loop_have_own ? &loop_own : NULL;
}

void caller_creds_stale(void)
{
	creds_gen++;
}

void caller_creds_forget(struct proc *p)
{
	free(p->creds);
	p->creds = NULL;
}
