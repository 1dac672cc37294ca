/* SPDX-License-Identifier: MIT */
/*
 * The scalar family: calls decided on their registers alone, and the
 * calls refused because they would do a mediated call's work unmediated.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/net.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/regs.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/sysv.h"
#include "supervisor/handlers.h"

/*
 * action = rewrite of a call decided on its registers: the caller restarts
 * it with the changed arguments (regs.c), and it is decided again.
 */
static int scalar_rewrite(struct sup *s, struct call *c)
{
	uint64_t set[6];
	struct proc *p = procs_find(c->tid);

	int rc;

	memcpy(c->orig_args, c->req->data.args, sizeof(c->orig_args));
	memcpy(set, c->orig_args, sizeof(set));
	c->rewrite_rule = c->v.rule;
	c->rewritten = true;
	if (!rules_rewrite_args(&c->v, set)) {
		/* Nothing to change: it runs as it is. */
		c->v.action = RULES_ALLOW;
		return notify_finish(s, c, true);
	}
	/*
	 * Recorded now, as rewritten: the restarted call may be allowed by
	 * the filter without a notification (its new arguments no longer
	 * meet the rule's conditions).
	 */
	c->rw_req = *c->req;
	memcpy(c->rw_req.data.args, set, sizeof(set));
	c->req = &c->rw_req;
	c->v.action = RULES_ALLOW;
	c->note = "restarted with the rewritten arguments";
	notify_records_lock();
	rc = s->tally.failed ? -EIO : record_call(s, c, NULL);
	if (rc == 0)
		s->tally.counts[RULES_REWRITE]++;
	notify_records_unlock();
	if (rc < 0) {
		sup_fail(s, "cannot write the audit trail: %s", strerror(-rc));
		return notify_send_resp(s, c->req->id, 0, EPERM, false);
	}
	if (p && regs_rewrite(s, c, p, set, -1, NULL, NULL, 0) == 0)
		return 0;
	/* Security: a call that cannot be rewritten does not run as it
	 * was. */
	return notify_send_resp(s, c->req->id, 0, EPERM, false);
}

int handle_scalar(struct sup *s, struct call *c, struct proc *caller)
{
	struct rules_event ev = {
		.nr = c->req->data.nr,
		.exe = c->exe,
	};

	/* Not caller: the task may be gone after an ask or a stack
	 * request, and is looked up again. */
	(void)caller;
	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	/* Security: before anything else, a rewritten call included. */
	if (sysv_is_call(c->req->data.nr) && sysv_check(c))
		return notify_finish(s, c, false);
	if (core_limit_raised(c))
		return notify_finish(s, c, false);
	if (c->req->data.nr == SYS_fcntl && is_lease_taken(c->req->data.args) &&
	    rules_mechanism(s->run.rules, SYS_fchmod, NULL) ==
	    RULES_MECH_NOTIFY)
		return lease_call(s, c);
	if (c->req->data.nr == SYS_ioctl &&
	    rules_fileattr_cmd(c->req->data.args[1]) &&
	    rules_mechanism(s->run.rules, SYS_fchmod, NULL) ==
	    RULES_MECH_NOTIFY)
		return fileattr_call(s, c);
	{
		int r = owner_call(s, c);

		if (r >= 0)
			return r;
	}
	if (fork_over_limit(s, c))
		return notify_finish(s, c, false);
	switch (outside_tree(s, c)) {
	case 0:
		/* A restarted call: by every rule but its own rewrite. */
		if (c->rewritten)
			rules_match_rewritten(s->run.rules, &ev,
					      c->rewrite_rule, &c->v);
		else
			rules_match(s->run.rules, &ev, &c->v);
		break;
	case 2:
		/* Answered as the kernel would, without running it. */
		return notify_finish(s, c, false);
	default:
		break;
	}
	if (c->v.action == RULES_ALLOW && !c->rewritten &&
	    net_scalar_decides(c))
		return net_scalar(s, c);
	if (c->v.stack && stack_request(s, c) > 0)
		return 0;
	if (c->rewritten && c->v.action == RULES_ALLOW) {
		/* The restarted call, allowed as it now is; its record was
		 * written when it was rewritten. */
		c->v.action = RULES_ALLOW;
		c->v.audit = false;
		/* A SysV get is made here as any other, rewritten or not. */
		if (sysv_is_call(c->req->data.nr) && sysv_allowed(s, c))
			return notify_finish(s, c, false);
		return notify_finish(s, c, true);
	}
	if (c->v.action == RULES_REWRITE)
		return scalar_rewrite(s, c);
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		return 0;
	if (c->v.action == RULES_ALLOW && sysv_is_call(c->req->data.nr) &&
	    sysv_allowed(s, c))
		return notify_finish(s, c, false);
	if (c->v.action == RULES_ALLOW && is_fork(c->req->data.nr) &&
	    s->lim.max_tasks) {
		struct proc *p = procs_find(c->tid);

		if (p && !p->fork_inflight) {
			p->fork_inflight = true;
			s->lim.forks_inflight++;
		}
	}
	/* Security: CONTINUE is safe here: nothing was read from the
	 * tracee's memory to decide. */
	return notify_finish(s, c, c->v.action == RULES_ALLOW);
}

/*
 * Security: a call that would do a mediated call's work without making it
 * (rules_unmediated_refused(): io_uring, the mount family, file handles)
 * under a policy with path or address rules.  The policy's own deny or
 * kill stands; anything else it says is refused with EPERM.  Every one is
 * recorded.  Nothing of the tree's memory is read.
 */
int unmediated_call(struct sup *s, struct call *c)
{
	struct rules_event ev = { .nr = c->req->data.nr, .exe = c->exe };

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	rules_match(s->run.rules, &ev, &c->v);
	if (c->v.action == RULES_DENY || c->v.action == RULES_KILL)
		c->v.audit = true;
	else
		notify_verdict_builtin(&c->v, "sysgate:unmediated", EPERM);
	return notify_finish(s, c, false);
}
