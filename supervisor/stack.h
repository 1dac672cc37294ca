/* SPDX-License-Identifier: MIT */
/*
 * Stack traces for `stack = yes` (stack.c, on libunwind-ptrace), private to
 * supervisor/.  A task blocked in a user notification is not in a ptrace
 * stop, and with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV it cannot be
 * interrupted until it is answered (docs/PLATFORM.md 3f).  So a call whose
 * verdict wants a stack is not decided on its first notification: the
 * caller is sent PTRACE_INTERRUPT and the notification is answered with
 * -ERESTARTNOINTR.  On its way back to user mode the task takes the
 * interrupt's trap (a PTRACE_EVENT_STOP with the registers of the call),
 * where the loop unwinds it; when resumed, the kernel restarts the call
 * (ip -= 2, ax = orig_ax), which is notified again under a new id and
 * decided then, with the stack at hand.
 *
 *	a handler (h-*.c, net.c), once the verdict is known:
 *		if (c->v.stack && stack_request(s, c) > 0)
 *			return;            // answered: the call will restart
 *	loop.c, at a ptrace stop of p:
 *		if (p->stack_wanted)
 *			stack_on_stop(p);  // then PTRACE_CONT as usual
 *	record.c: c->stack (frames, or an error) goes into the record.
 *	loop.c, exec and end of a process: stack_process_forget(tgid).
 *
 * Everything here runs on the event loop's thread.
 */
#ifndef SYSGATE_SUPERVISOR_STACK_H
#define SYSGATE_SUPERVISOR_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sup;
struct call;
struct proc;

#define STACK_MAX_FRAMES 32
#define STACK_MODULE_MAX 256   /* module paths are cut to this */
#define STACK_SYMBOL_MAX 256   /* symbol names are cut to this */

struct stack_frame {
	uint64_t ip;
	uint64_t module_offset;   /* ip's offset in the module's file */
	uint64_t symbol_offset;   /* ip - the symbol's start */
	bool have_module;
	bool have_symbol;
	char module[STACK_MODULE_MAX];
	char symbol[STACK_SYMBOL_MAX];
};

struct stack_trace {
	/* The call it is taken for: a re-notified call is the same call
	 * when its number and six arguments are. */
	int nr;
	uint64_t args[6];
	uint64_t used_id;   /* the notification it was given to (0: none) */
	bool taken;         /* unwound (or given up): frames/error are final */
	bool truncated;     /* more than STACK_MAX_FRAMES frames */
	char error[128];    /* why there is no (whole) stack, "" if none */
	unsigned n_frames;
	struct stack_frame frames[STACK_MAX_FRAMES];
};

/*
 * Load libunwind (dlopen of UNWIND_PTRACE_SONAME and UNWIND_ARCH_SONAME):
 * called at start-up when the policy has stack = yes; later calls return
 * the first answer.  0, or -1 with the reason (naming the library) in err
 * (if not NULL).  Without it no stack can be taken.
 */
int stack_init(char *err, size_t err_len);

/*
 * The verdict of c wants a stack (c->v.stack).  Returns 0 when the call is
 * to be decided now: then c->stack points to the stack taken for this very
 * call (or to one that says why there is none), borrowed from the caller's
 * process entry until its next call; it is NULL only when the call's
 * record is not written anyway (c->v.audit false).  Returns 1 when the
 * notification was answered with a restart and the caller is interrupted
 * (or died): the handler must return without replying.  Never decides the
 * call and never blocks.
 */
int stack_request(struct sup *s, struct call *c);

/*
 * p is in a ptrace stop and p->stack_wanted: unwind it into p->stack and
 * clear stack_wanted.  The caller resumes p as it would anyway.
 */
void stack_on_stop(struct proc *p);

/* Drop what is cached for process tgid (address space, maps): at its exec
 * and its end. */
void stack_process_forget(pid_t tgid);
/* p leaves the process table: its stack (p->stack) is freed
 * (procs_on_forget()). */
void stack_forget_task(struct proc *p);

#endif
