/* SPDX-License-Identifier: MIT */
/*
 * The trusted path's core, shared by the handlers (h-*.c, net.c) that
 * dispatch.c hands each call to: decide the call from its paths'
 * verdicts, record it, and reply.  A CONTINUE is
 * sent only for calls whose decision read no tracee memory, and for
 * execve, which is checked again at the exec stop (notify_exec_event).
 * The handlers live in h-*.c, one file per family; docs/INTERNALS.md walks
 * one call through them.
 *
 * The threading contract.
 *
 * The event loop's thread (loop.c) receives every notification and runs
 * its handler; it alone owns, reads and changes:
 *   - the process table and every struct proc (procs.c), with what the
 *     modules keep in it (kept roots, cwds and umasks of resolve.c, the
 *     exec check, register edits of regs.c, stacks, --user credentials);
 *   - the --user credentials it takes on for a caller (callercreds.c);
 *   - cpubind.c's bindings, sysv.c's objects, the exec image buffer.
 * Functions that need that state start with assert_loop_thread().
 *
 * A worker thread (pool.c) finishes one call that may block (a FIFO
 * open, a connect, a send, an accept) from a call_job: its own copy of
 * the call, the notification, the caller's exe name, credentials and
 * stack, taken by call_job_init() on the loop.  With the caller's
 * credentials (call_job_enter()) it may read and write the caller's
 * memory by tid, resolve paths (resolve.c keeps nothing for it: it walks
 * in full off the loop's thread), carry the call out, install an fd
 * (notify_add_fd()), record and reply (notify_finish()).  It never
 * touches the process table or a struct proc.
 *
 * Shared by both: the trail and the run's counters, written under
 * finish_lock (notify_finish(), notify_record_before_change(),
 * notify_records_lock()); the listener, whose ioctls the kernel
 * serialises.  An ask thread (ask.c) only asks: the loop decides the
 * answered call again (ask_dispatch()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "common/util.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

/* ------------------------------------------------------------------ */
/* Replies                                                             */

/* Notifications from one caller in a row after which choose_wake() stops
 * looking for other work, and an ADDFD keeps the loop bound (cpubind.c). */
#define WAKE_ALONE 16

/* Are the last notifications a run from one caller alone? */
bool caller_alone(const struct sup *s)
{
	return s->tally.notifications - s->loop.caller_switch > WAKE_ALONE;
}

static void set_sync(struct sup *s, bool on)
{
	if (s->loop.sync_on == on)
		return;
	if (ioctl(s->loop.listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		  on ? SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP : 0UL) == 0)
		s->loop.sync_on = on;
}

void notify_wake_idle(struct sup *s)
{
	if (s->loop.sync_wake)
		set_sync(s, true);
}

/*
 * Performance: where the caller wakes up.  With SYNC_WAKE_UP on, the reply
 * wakes the caller on the CPU the event loop runs on: right when the loop
 * sleeps next (the two take turns on one CPU, and no idle vCPU has to be
 * woken), wrong when the loop has more work waiting (another caller's
 * notification, a ptrace stop): the caller would then wait, runnable,
 * behind the loop on its CPU while the CPU it came from (another caller's,
 * now blocked) stands idle.  With two compilers of make -j2 that put both
 * on one CPU a good part of the run.  So a reply sent with work waiting
 * is an ordinary wake-up, which lets the scheduler put the caller on an
 * idle CPU.  Only the event loop looks (workers answer beside it).
 */
static void choose_wake(struct sup *s)
{
	struct pollfd p[2] = {
		{ .fd = s->loop.listener, .events = POLLIN },
		{ .fd = s->loop.sigfd, .events = POLLIN },
	};

	if (!s->loop.sync_wake || !tracee_on_main_thread())
		return;
	/* One caller alone (a loop of calls): nothing else can be waiting
	 * that the look would find often enough to pay for itself. */
	if (s->loop.sync_on && caller_alone(s))
		return;
	set_sync(s, poll(p, 2, 0) == 0);
}

int notify_send_resp(struct sup *s, uint64_t id, int64_t val, int err,
		     bool cont)
{
	struct seccomp_notif_resp resp = {
		.id = id,
		.val = cont ? 0 : val,
		/* Security: the kernel wants a negative errno; a positive one
		 * would read as a successful return (docs/PLATFORM.md 3a). */
		.error = cont ? 0 : -err,
		.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	choose_wake(s);
	if (ioctl(s->loop.listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0) {
		/* ENOENT: the caller died or was interrupted by a fatal
		 * signal; nothing ran. */
		if (errno == ENOENT)
			return 0;
		return -errno;
	}
	return 0;
}

bool notify_id_valid(struct sup *s, uint64_t id)
{
	return ioctl(s->loop.listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/*
 * Install fd in the caller (not yet answering), return its number there.
 *
 * Performance: SECCOMP_ADDFD_FLAG_SEND would answer the call with the
 * install, one ioctl and one sleep of the supervisor less (what it gained
 * when tried: bench/README.md, "Choices not taken").  Not taken, for two
 * reasons.  The record must be in the trail before the
 * answer (docs/INTERNALS.md, *Record*), and the fd number is only known
 * from the install:
 * the record would lose it, or a result record would follow each open.
 * And the caller would run again bound to this CPU until the mask is put
 * back, which cpubind.c now allows for a run's caller (kept bound between
 * its calls: its mask put back before it reads or sets one, a new task's
 * mask fixed at its first stop).  The first stands: its answer (no fd
 * number in the record) would change the trail's format.
 */
static int add_fd(struct sup *s, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = 0,
		.srcfd = (uint32_t)fd,
		.newfd = 0,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	int r = ioctl(s->loop.listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	return r < 0 ? -errno : r;
}

int notify_add_fd(struct sup *s, uint64_t id, int fd, bool cloexec)
{
	return add_fd(s, id, fd, cloexec);
}

/* ------------------------------------------------------------------ */
/* Decisions                                                           */

void notify_verdict_builtin(struct rules_verdict *v, const char *rule, int err)
{
	v->action = RULES_DENY;
	v->would = RULES_ALLOW;
	v->err = err;
	v->rule = rule;
	v->audit = true;
	v->stack = false;
}

/* The deciding verdict of the call: the strictest of its paths. */
void decide_call(struct call *c)
{
	bool first = true;

	for (unsigned i = 0; i < c->n_paths; i++) {
		if (!c->paths[i].checked)
			continue;
		if (first || rules_verdict_rank(&c->paths[i].v) >
			     rules_verdict_rank(&c->v))
			c->v = c->paths[i].v;
		first = false;
	}
}

static void kill_caller(struct call *c)
{
	/* Security: the call under review never runs: we never reply
	 * CONTINUE, and SIGKILL takes the process before our error reply
	 * can be acted upon. */
	kill(c->tgid, SIGKILL);
}

/*
 * Record and reply.  The record goes to the trail first: a call that runs
 * is never missing from it.  If the trail cannot be written, the call is
 * denied and sysgate fails closed.
 *
 * Performance: answering a call that does not run (a denial, a missing
 * name) before its record, which the trail's rule would allow, gains
 * nothing (bench/README.md, "Choices not taken"): the reply wakes the
 * caller on this CPU (SYNC_WAKE_UP), where it waits for the record all
 * the same.
 */
static pthread_mutex_t finish_lock = PTHREAD_MUTEX_INITIALIZER;

void notify_records_lock(void)
{
	pthread_mutex_lock(&finish_lock);
}

void notify_records_unlock(void)
{
	pthread_mutex_unlock(&finish_lock);
}

int notify_finish(struct sup *s, struct call *c, bool cont)
{
	uint64_t seq = 0;
	int r;

	if (c->v.action == RULES_KILL)
		kill_caller(c);
	if (c->err == 0 && !cont && !c->have_result && c->v.action != RULES_ALLOW)
		c->err = c->v.err ? c->v.err : EPERM;
	/* Blocking calls finish on their own threads: one record at a time. */
	pthread_mutex_lock(&finish_lock);
	if (s->tally.failed)
		r = -EIO;
	else if (c->pre_seq)
		r = record_result(s, c);
	else
		r = record_call(s, c, &seq);
	if (r < 0) {
		sup_fail(s, "cannot write the audit trail: %s", strerror(-r));
		pthread_mutex_unlock(&finish_lock);
		return notify_send_resp(s, c->req->id, 0, EPERM, false);
	}
	if (c->v.action != RULES_ALLOW)
		record_note_denial(s, c, c->pre_seq && c->pre_seq != UINT64_MAX ?
				   c->pre_seq : seq);
	if (!c->pre_seq)
		s->tally.counts[call_action(c)]++;
	pthread_mutex_unlock(&finish_lock);
	if (cont)
		return notify_send_resp(s, c->req->id, 0, 0, true);
	return notify_send_resp(s, c->req->id, c->result, c->err, false);
}

/*
 * Security: a call that changes something (creates, removes, renames,
 * truncates, binds, connects) is recorded before the supervisor makes the
 * change, so that a supervisor killed in between leaves no change without
 * its record.  Its result follows in a syscall.result record.  Returns 0,
 * or -EIO when the trail cannot be written: then nothing may be done.
 */
int notify_record_before_change(struct sup *s, struct call *c)
{
	uint64_t seq = 0;
	int r;

	pthread_mutex_lock(&finish_lock);
	if (s->tally.failed) {
		pthread_mutex_unlock(&finish_lock);
		return -EIO;
	}
	c->pending = true;
	r = record_call(s, c, &seq);
	c->pending = false;
	if (r < 0) {
		sup_fail(s, "cannot write the audit trail: %s", strerror(-r));
		pthread_mutex_unlock(&finish_lock);
		return -EIO;
	}
	s->tally.counts[call_action(c)]++;
	/* Only a recorded decision gets a result record, which refers to
	 * the seq this record's commit gave it (not the trail's last seq,
	 * which is the same only while no other thread records meanwhile:
	 * today they all take finish_lock or are this thread). */
	c->pre_seq = c->v.audit ? seq : UINT64_MAX;
	pthread_mutex_unlock(&finish_lock);
	return 0;
}

/*
 * action = rewrite: carry the call out as the rule rewrites it.  The paths
 * whose rule redirects them are replaced, the arguments changed, and the
 * call is decided again from the start on what it now names (the caller's
 * memory is not read again).  Called by a handler once c->v is a rewrite,
 * with nothing done and nothing recorded yet.
 */
int rewrite_restart(struct sup *s, struct call *c)
{
	unsigned n = c->n_paths;

	decide_call(c);	/* the strictest verdict of the paths seen */
	for (unsigned i = 0; i < n; i++) {
		struct call_path *cp = &c->paths[i];
		int rc;

		if (!cp->checked || cp->v.action != RULES_REWRITE)
			continue;
		rc = rules_rewrite_path(&cp->v, cp->resolved, cp->redirect,
					sizeof(cp->redirect));
		if (rc == -ENOENT)
			continue;	/* the rule changes arguments only */
		if (rc < 0) {
			c->err = -rc;
			c->note = "the redirected path is too long";
			return notify_finish(s, c, false);
		}
		snprintf(cp->from, sizeof(cp->from), "%s", cp->resolved);
		cp->redirected = true;
		cp->rewrite_by = cp->v.rule;
		cp->redirect_base = strlen(rules_rewrite_redirect(&cp->v));
	}
	memcpy(c->orig_args, c->req->data.args, sizeof(c->orig_args));
	c->rw_req = *c->req;
	rules_rewrite_args(&c->v, (uint64_t *)c->rw_req.data.args);
	c->req = &c->rw_req;
	c->rewritten = true;
	c->rewrite_rule = c->v.rule;
	c->v = (struct rules_verdict){
		.action = RULES_ALLOW,
		.audit = rules_audit_level(s->run.rules) == RULES_AUDIT_ALL,
	};
	c->err = 0;
	c->note = NULL;
	for (unsigned i = 0; i < n; i++) {
		c->paths[i].checked = false;
		c->paths[i].have_resolved = false;
	}
	c->n_paths = 0;
	/* Through the pointer dispatch.c set: the table is above this file. */
	return c->redispatch(s, c, procs_find(c->tid));
}

int notify_refuse_unsupported(struct sup *s, struct call *c)
{
	notify_verdict_builtin(&c->v, "sysgate:unsupported", ENOSYS);
	return notify_finish(s, c, false);
}
