/* SPDX-License-Identifier: MIT */
/*
 * Receive a notification, bring its caller's entry in the process table
 * up to date, refuse what the closed world refuses, and hand the call to
 * its family's handler (the syscall table's row).  This file sits above
 * the handlers (h-*.c, net.c) and the core they share (notify.c): they
 * never call into it; a rewritten call is decided again through
 * c->redispatch, an answered question through the pointer the loop gives
 * ask_dispatch().
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "common/util.h"
#include "supervisor/call.h"
#include "supervisor/cpubind.h"
#include "supervisor/dispatch.h"
#include "supervisor/net.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/regs.h"
#include "supervisor/resolve.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"
#include "supervisor/handlers.h"

/* The call to its family's handler (the syscall table's row). */
static int dispatch(struct sup *s, struct call *c, struct proc *p);

int notify_handle_one(struct sup *s, struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp)
{
	assert_loop_thread();
	(void)resp;
	/* libseccomp does not zero it, and the kernel refuses a dirty one. */
	memset(req, 0, s->loop.sizes.seccomp_notif);
	if (ioctl(s->loop.listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
		if (errno == ENOENT || errno == EINTR)
			return 0;	/* withdrawn, or caller gone */
		return -errno;
	}
	s->tally.notifications++;
	if ((pid_t)req->pid != s->loop.last_caller) {
		s->loop.last_caller = (pid_t)req->pid;
		s->loop.caller_switch = s->tally.notifications;
		/* Two callers: the loop free to run where one is idle. */
		cpubind_release_self();
	}
	return notify_handle_req(s, req);
}

/*
 * A zeroed call, but for its path buffers (64 KiB, written at every
 * notification otherwise): those start as empty strings.
 */
static void call_init(struct call *c)
{
	const size_t head = offsetof(struct call, paths);
	const size_t tail = head + sizeof(c->paths);

	memset(c, 0, head);
	memset((char *)c + tail, 0, sizeof(*c) - tail);
	for (size_t i = 0; i < CALL_MAX_PATHS; i++) {
		struct call_path *cp = &c->paths[i];

		memset(cp, 0, offsetof(struct call_path, raw));
		cp->raw[0] = '\0';
		cp->resolved[0] = '\0';
		cp->redirect[0] = '\0';
		cp->from[0] = '\0';
	}
}

/*
 * The caller's entry in the process table, brought up to date for a new
 * call of c (c->tgid set; a call restarted by a rewrite marked so).  NULL
 * when out of memory.
 */
static struct proc *call_task(struct sup *s, struct call *c)
{
	struct proc *p = procs_find(c->tid);

	if (!p || !p->exe)
		notify_creds_release();	/* /proc reads of our own */
	if (!p) {
		/* A new task can be notified before its first ptrace stop. */
		pid_t tg = tracee_tgid(c->tid);

		p = procs_add(c->tid, tg > 0 ? tg : c->tid, 0);
		if (!p)
			return NULL;
		if (tg > 0 && tg != c->tid) {
			struct proc *leader = procs_find(tg);

			if (leader && leader->exe)
				procs_set_exe(p, leader->exe);
		}
	}
	c->tgid = p->tgid;
	/* A new call: any it was continued in is over. */
	tracee_seen(p);
	/* The call a rewrite restarted with new registers: decided on
	 * them, by every rule but its own rewrite. */
	if (p->edit)
		regs_edited_call(p, c);
	if (p->fork_inflight) {
		/* Its fork has returned (or it would not be here). */
		p->fork_inflight = false;
		s->lim.forks_inflight--;
	}
	if (!p->exe) {
		char exe[PATH_MAX];

		if (tracee_exe(c->tid, exe, sizeof(exe)) == 0)
			procs_set_exe(p, exe);
	}
	return p;
}

int notify_handle_req(struct sup *s, struct seccomp_notif *req)
{
	struct call c;
	struct proc *p;
	char namebuf[32];
	int nr = req->data.nr;

	assert_loop_thread();
	call_init(&c);
	c.req = req;
	c.redispatch = dispatch;
	/*
	 * Until a rule decides, a call that fails on its own (a bad pointer,
	 * a missing directory) is recorded as the kernel's answer: allowed
	 * to fail, under audit = all.
	 */
	c.v.action = RULES_ALLOW;
	c.v.audit = rules_audit_level(s->run.rules) == RULES_AUDIT_ALL;
	c.note = NULL;
	c.tid = (pid_t)req->pid;
	resolve_note_call(c.tid, nr);
	cpubind_note_call(c.tid, nr, req->data.args[0]);
	if (rules_changes_creds(nr))
		caller_creds_stale();
	p = call_task(s, &c);
	if (!p)
		return notify_send_resp(s, req->id, 0, ENOMEM, false);
	c.exe = p->exe;
	c.info = rules_syscall_by_nr(nr);
	c.name = c.info ? c.info->name : NULL;
	if (!c.name) {
		snprintf(namebuf, sizeof(namebuf), "syscall_%d", nr);
		c.name = namebuf;
	}

	if (req->data.arch != AUDIT_ARCH_X86_64) {
		/* The guard filter kills other ABIs; never let one through. */
		notify_verdict_builtin(&c.v, "sysgate:arch", ENOSYS);
		return notify_finish(s, &c, false);
	}
	/* A process is always allowed to end. */
	if (nr == SYS_exit || nr == SYS_exit_group || nr == SYS_rt_sigreturn)
		return notify_send_resp(s, req->id, 0, 0, true);

	/* Security: the closed world (rules/filter.c): a number without a
	 * row of the syscall table, and a call refused under every policy,
	 * fail as on a kernel without them, and the attempt is recorded. */
	if (!c.info || c.info->decide == RULES_DECIDE_REFUSED) {
		notify_verdict_builtin(&c.v, c.info ? "sysgate:refused" :
				       "sysgate:unknown-syscall", ENOSYS);
		return notify_finish(s, &c, false);
	}
	if (rules_unmediated_refused(s->run.rules, nr))
		return unmediated_call(s, &c);
	if (s->run.as_caller && c.info->kind != RULES_KIND_SCALAR) {
		/* Opened with our own rights: a caller's may not open it
		 * (one that made itself non-dumpable). */
		(void)tracee_mem_fd(c.tid);
		/*
		 * Security: --user: the supervisor is root; every walk and
		 * every emulated call is done with the caller's credentials
		 * (ids, groups, capabilities), so it lends none of its own
		 * rights.
		 */
		const struct creds *held = caller_creds_take(p, c.tid);

		if (!held) {
			notify_verdict_builtin(&c.v, "sysgate:credentials", EPERM);
			return notify_finish(s, &c, false);
		}
		c.creds = held;
		/* Kept after the call: the next one is most often the same
		 * caller's; the loop puts ours back before any work of its
		 * own (notify_creds_release()). */
		return dispatch(s, &c, p);
	}
	notify_creds_release();
	return dispatch(s, &c, p);
}

/*
 * One handler per family of the syscall table (rules/syscalls.c, the
 * row's family): adding a syscall is a row there and, for a family of its
 * own, a handler here.  Each takes the call as received and answers it.
 */
typedef int (*family_handler)(struct sup *s, struct call *c, struct proc *p);

static int fam_net(struct sup *s, struct call *c, struct proc *p)
{
	(void)p;
	return net_handle(s, c);
}

/* Security: the closed world (notify_handle_req() refuses these before,
 * this row is the table's own word for it). */
static int fam_refused(struct sup *s, struct call *c, struct proc *p)
{
	(void)p;
	notify_verdict_builtin(&c->v, "sysgate:refused", ENOSYS);
	return notify_finish(s, c, false);
}

static const family_handler family_handlers[] = {
	[RULES_FAM_SCALAR] = handle_scalar,
	[RULES_FAM_OPEN] = handle_open,
	[RULES_FAM_CHANGE] = handle_change,
	[RULES_FAM_META] = handle_meta,
	[RULES_FAM_EXEC] = handle_exec,
	[RULES_FAM_NET] = fam_net,
	[RULES_FAM_REFUSED] = fam_refused,
};

static int dispatch(struct sup *s, struct call *c, struct proc *p)
{
	unsigned f = (unsigned)c->info->family;

	if (f < ARRAY_SIZE(family_handlers) && family_handlers[f])
		return family_handlers[f](s, c, p);
	return notify_refuse_unsupported(s, c);
}
