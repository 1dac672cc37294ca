/* SPDX-License-Identifier: MIT */
/*
 * A call the kernel itself runs (chdir, an O_PATH open, an exec, any call
 * decided on its registers), rewritten in the caller's registers: action =
 * rewrite redirects its path or changes its arguments, and the supervisor
 * cannot carry such a call out for the caller.
 *
 * The notification is answered so that the caller stops before it returns
 * to user space: PTRACE_INTERRUPT, then the answer -ERESTARTNOINTR.  At
 * that PTRACE_EVENT_STOP its registers are those of the call about to be
 * restarted; the argument registers are set to the rewritten values, a new
 * path written below its stack pointer (past the red zone and room for a
 * signal frame) with its register pointed at it.  The task then runs under
 * PTRACE_SYSCALL until the restarted call's exit, where the registers get
 * back their old values (code may keep a value in one across the syscall
 * instruction), and PTRACE_CONT again.  An exec that succeeds ends it.
 *
 * Security: nothing here decides anything.  The restarted call is notified
 * again and decided like any other call on what it now names, by every
 * rule but the rewrite's own (rules_match_rewritten(): a call is
 * rewritten once).  A racing thread that changes the written path changes what the
 * new notification reads and is decided on, nothing else.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/regs.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"

#ifndef ERESTARTSYS
#define ERESTARTSYS 512		/* kernel-internal: restart, or EINTR */
#endif
#ifndef ERESTARTNOINTR
#define ERESTARTNOINTR 513	/* kernel-internal: restart the call */
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452	/* linux-libc-dev 6.1 predates it */
#endif

/* Syscalls a stepping task may make before its restarted call (signal
 * handlers run first): then the register is left as it is. */
#define REGS_MAX_STEPS 256

enum edit_state {
	EDIT_WANT_STOP,	/* interrupted, its stop not seen yet */
	EDIT_STEPPING,	/* restarted with the new path, until its exit */
};

struct regs_edit {
	enum edit_state state;
	int nr;
	uint64_t args[6];	/* the call's registers as it made it */
	uint64_t set[6];	/* as it is restarted */
	int arg;		/* the path argument, -1: none */
	char path[PATH_MAX];
	char from[PATH_MAX + 64]; /* what the call named, for its record */
	unsigned steps;
	const char *rule;	/* the rewrite rule (borrowed from the set) */
	size_t base;		/* path's start that it must stay under */
};

static unsigned long long *reg_of(struct user_regs_struct *r, unsigned arg)
{
	switch (arg) {
	case 0: return &r->rdi;
	case 1: return &r->rsi;
	case 2: return &r->rdx;
	case 3: return &r->r10;
	case 4: return &r->r8;
	default: return &r->r9;
	}
}

static void edit_drop(struct proc *p)
{
	free(p->edit);
	p->edit = NULL;
}

int regs_rewrite(struct sup *s, struct call *c, struct proc *p,
		 const uint64_t set[6], int arg, const char *path,
		 const char *from, size_t base)
{
	struct regs_edit *e;
	int rc;

	if (p->edit || arg > 5 || (arg >= 0 && strlen(path) >= sizeof(e->path)))
		return -EBUSY;
	if (p->edit_fails >= 3)
		return -EFAULT;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->state = EDIT_WANT_STOP;
	e->nr = c->req->data.nr;
	memcpy(e->args, c->orig_args, sizeof(e->args));
	memcpy(e->set, set, sizeof(e->set));
	e->arg = arg;
	if (arg >= 0)
		strcpy(e->path, path);
	snprintf(e->from, sizeof(e->from), "rewritten in the caller's registers%s%s",
		 from ? "; the call named " : "", from ? from : "");
	e->rule = c->rewrite_rule;
	e->base = arg >= 0 && base <= strlen(path) ? base : 0;
	if (ptrace(PTRACE_INTERRUPT, c->tid, 0, 0) < 0) {
		rc = -errno;
		free(e);
		return rc;
	}
	p->edit = e;
	/* The caller goes back towards user space, stops for the interrupt,
	 * and restarts the call; nothing of it ran. */
	rc = notify_send_resp(s, c->req->id, 0, ERESTARTNOINTR, false);
	if (rc < 0)
		edit_drop(p);
	return rc;
}

bool regs_edited_call(struct proc *p, struct call *c)
{
	struct regs_edit *e = p->edit;

	if (!e || e->state != EDIT_STEPPING || c->req->data.nr != e->nr ||
	    memcmp(e->set, c->req->data.args, sizeof(e->set)) != 0)
		return false;
	c->rewritten = true;
	c->rewrite_rule = e->rule;
	memcpy(c->orig_args, e->args, sizeof(c->orig_args));
	c->note = e->from;
	if (e->arg >= 0) {
		c->expect_path = e->path;
		c->expect_arg = e->arg;
		c->expect_base = e->base;
	}
	return true;
}

/* At the interrupt's stop: write the path and point the register at it.
 * False when the call cannot be edited (then it restarts as it was, and
 * is decided again). */
static bool edit_at_stop(struct proc *p, struct regs_edit *e)
{
	struct user_regs_struct r;
	size_t len = strlen(e->path) + 1;

	if (ptrace(PTRACE_GETREGS, p->tid, 0, &r) < 0)
		return false;
	if ((long long)r.orig_rax != e->nr || (long long)r.rax != -ERESTARTNOINTR)
		return false;
	if (r.rdi != e->args[0] || r.rsi != e->args[1] || r.rdx != e->args[2] ||
	    r.r10 != e->args[3] || r.r8 != e->args[4] || r.r9 != e->args[5])
		return false;
	if (e->arg >= 0) {
		/* Below the 128-byte red zone, and below what a signal frame
		 * would take if a handler ran before the restart; nearer
		 * when the stack does not reach that far. */
		uint64_t addr = (r.rsp - 128 - 16384 - len) & ~(uint64_t)15;

		if (tracee_write(p->tid, addr, e->path, len) < 0) {
			addr = (r.rsp - 128 - len) & ~(uint64_t)15;
			if (tracee_write(p->tid, addr, e->path, len) < 0)
				return false;
		}
		e->set[e->arg] = addr;
	}
	for (unsigned i = 0; i < 6; i++)
		*reg_of(&r, i) = e->set[i];
	if (ptrace(PTRACE_SETREGS, p->tid, 0, &r) < 0)
		return false;
	e->state = EDIT_STEPPING;
	return true;
}

/* At a syscall stop while stepping: the exit of the restarted call puts
 * the register back. */
static void edit_at_syscall(struct proc *p, struct regs_edit *e)
{
	struct __ptrace_syscall_info si;
	struct user_regs_struct r;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, p->tid, sizeof(si), &si) <= 0)
		return;
	if (si.op != PTRACE_SYSCALL_INFO_EXIT)
		return;
	if (ptrace(PTRACE_GETREGS, p->tid, 0, &r) < 0)
		return;
	if ((long long)r.orig_rax == e->nr) {
		bool same = true;

		for (unsigned i = 0; i < 6; i++)
			same &= *reg_of(&r, i) == e->set[i];
		if (same) {
			for (unsigned i = 0; i < 6; i++)
				*reg_of(&r, i) = e->args[i];
			ptrace(PTRACE_SETREGS, p->tid, 0, &r);
			edit_drop(p);
			return;
		}
	}
	if (++e->steps > REGS_MAX_STEPS)
		edit_drop(p);
}

long regs_on_stop(struct proc *p, int event, int sig)
{
	struct regs_edit *e = p->edit;

	if (!e)
		return PTRACE_CONT;
	if (event == PTRACE_EVENT_EXEC) {
		/* A new program: nothing to give back (a task that exits
		 * drops its edit with its entry in the table). */
		edit_drop(p);
		return PTRACE_CONT;
	}
	if (e->state == EDIT_WANT_STOP) {
		if (event != PTRACE_EVENT_STOP)
			return PTRACE_CONT;	/* wait for the interrupt's stop */
		if (!edit_at_stop(p, e)) {
			p->edit_fails++;
			edit_drop(p);
			return PTRACE_CONT;
		}
		p->edit_fails = 0;
		return PTRACE_SYSCALL;
	}
	if (event == 0 && sig == (SIGTRAP | 0x80))
		edit_at_syscall(p, e);
	return p->edit ? PTRACE_SYSCALL : PTRACE_CONT;
}

void regs_forget(struct proc *p)
{
	edit_drop(p);
}

/*
 * Notified calls that the kernel never fails with EINTR: they do not
 * block (signals sent, ids and credentials, path changes and lookups on
 * names; no open, which waits on a FIFO or a device, no truncate, which
 * waits for a lease to be broken, no exec, socket, wait or IPC call).
 */
static bool never_eintr(long long nr)
{
	switch (nr) {
	case SYS_kill: case SYS_tkill: case SYS_tgkill:
	case SYS_rt_sigqueueinfo: case SYS_rt_tgsigqueueinfo:
	case SYS_pidfd_send_signal: case SYS_pidfd_open: case SYS_pidfd_getfd:
	case SYS_setsid: case SYS_setpgid:
	case SYS_mkdir: case SYS_mkdirat: case SYS_mknod: case SYS_mknodat:
	case SYS_rmdir: case SYS_unlink: case SYS_unlinkat:
	case SYS_rename: case SYS_renameat: case SYS_renameat2:
	case SYS_link: case SYS_linkat: case SYS_symlink: case SYS_symlinkat:
	case SYS_chmod: case SYS_fchmodat: case SYS_fchmodat2: case SYS_fchmod:
	case SYS_chown: case SYS_lchown: case SYS_fchownat: case SYS_fchown:
	case SYS_utime: case SYS_utimes: case SYS_futimesat:
	case SYS_utimensat:
	case SYS_setxattr: case SYS_lsetxattr: case SYS_fsetxattr:
	case SYS_removexattr: case SYS_lremovexattr: case SYS_fremovexattr:
	case SYS_getxattr: case SYS_lgetxattr:
	case SYS_listxattr: case SYS_llistxattr:
	case SYS_stat: case SYS_lstat: case SYS_newfstatat: case SYS_statx:
	case SYS_access: case SYS_faccessat: case SYS_faccessat2:
	case SYS_readlink: case SYS_readlinkat: case SYS_chdir: case SYS_statfs:
		return true;
	default:
		return false;
	}
}

/*
 * At a signal-delivery stop.  A signal that reaches a task waiting on a
 * notification the supervisor has not received yet makes the kernel
 * withdraw it and end the call with -ERESTARTSYS: restarted under
 * SA_RESTART, EINTR without it.  Nothing of the call was done (past the
 * receipt, WAIT_KILLABLE_RECV holds every signal but a fatal one off), so
 * natively this is a signal that came just before the call: the call
 * must be made after the handler, never fail.  For the calls that never
 * fail with EINTR natively, -ERESTARTNOINTR, which the kernel's signal
 * delivery then restarts whatever the handler's flags.  A call that
 * blocks natively keeps the kernel's answer.
 *
 * Security: only the return register changes; the restarted call is
 * notified again and decided like any other.  orig_rax names a call
 * only at a stop on the way out of one (else it is -1), so the tree
 * cannot make another call restart.
 */
void regs_signal_stop(pid_t tid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return;
	if ((long long)r.rax != -ERESTARTSYS ||
	    !never_eintr((long long)r.orig_rax))
		return;
	r.rax = (unsigned long long)-ERESTARTNOINTR;
	ptrace(PTRACE_SETREGS, tid, 0, &r);
}
