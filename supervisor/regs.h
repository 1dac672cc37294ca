/* SPDX-License-Identifier: MIT */
/* Calls rewritten in the caller's registers (regs.c). */
#ifndef SYSGATE_SUPERVISOR_REGS_H
#define SYSGATE_SUPERVISOR_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sup;
struct call;
struct proc;

/* regs.c: rewrite a call the kernel runs in the caller's registers.
 * regs_rewrite answers the notification c so that the caller stops and
 * restarts the call with its argument registers set to set[] (c->orig_args
 * are the caller's own), and, when arg >= 0, argument arg pointing at a
 * copy of path; from (may be NULL) is what the call named, for the
 * record; the restarted call's path must resolve under the first base
 * bytes of path (the redirect's target; 0: anywhere).  0 (the
 * notification is answered; the restarted call comes
 * again) or -errno (nothing done: the caller must answer).
 * regs_edited_call: is c that restarted call?  Then it is marked
 * rewritten by its rule, with the caller's own arguments in orig_args.
 * regs_on_stop: at each ptrace stop of p, returns how to resume it
 * (PTRACE_CONT or PTRACE_SYSCALL).  regs_forget: p is gone. */
struct regs_edit;
int regs_rewrite(struct sup *s, struct call *c, struct proc *p,
		 const uint64_t set[6], int arg, const char *path,
		 const char *from, size_t base);
bool regs_edited_call(struct proc *p, struct call *c);
long regs_on_stop(struct proc *p, int event, int sig);
void regs_forget(struct proc *p);
/* regs_signal_stop: at tid's signal-delivery stop, a notified call the
 * kernel withdrew for the signal is restarted when it never fails with
 * EINTR natively. */
void regs_signal_stop(pid_t tid);

#endif
